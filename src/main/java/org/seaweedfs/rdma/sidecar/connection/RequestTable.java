package org.seaweedfs.rdma.sidecar.connection;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import org.seaweedfs.rdma.protocol.ControlCodec;
import org.seaweedfs.rdma.protocol.ControlMessage;
import org.seaweedfs.rdma.protocol.ErrorReply;
import org.seaweedfs.rdma.protocol.ProtocolException;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.ucx.UcxChannel;
import org.seaweedfs.rdma.internals.VertxInternals;

/**
 * One connection's requests in flight: request ids, the bound on how many wait at once, each one's deadline, and
 * its single outcome (the reply, an agent {@code Error}, the timeout, a send failure or the close). Any thread;
 * every returned future completes on the caller's context.
 */
final class RequestTable {

    /** A request waiting for its reply; completed exactly once. */
    private static final class Pending {
        final Promise<ControlMessage> promise;
        final String what;
        volatile long timerId = -1;

        Pending(Promise<ControlMessage> promise, String what) {
            this.promise = promise;
            this.what = what;
        }
    }

    private final Vertx vertx;
    private volatile ControlCodec codec;
    private final UcxChannel channel;
    private final String peer;
    private final long timeoutMs;
    private final int maxOutstanding;
    /** Why a request cannot be sent now (the connection closed), or null while it can. */
    private final Supplier<ReadFailure> closed;
    private final AtomicLong nextRequestId = new AtomicLong();
    private final AtomicInteger outstanding = new AtomicInteger();
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();

    RequestTable(Vertx vertx, ControlCodec codec, UcxChannel channel, String peer, long timeoutMs, int maxOutstanding,
                 Supplier<ReadFailure> closed) {
        this.vertx = vertx;
        this.codec = codec;
        this.channel = channel;
        this.peer = peer;
        this.timeoutMs = timeoutMs;
        this.maxOutstanding = maxOutstanding;
        this.closed = closed;
    }

    /** Frames requests in the version the handshake agreed on. */
    void codec(ControlCodec agreed) {
        this.codec = agreed;
    }

    int outstanding() {
        return outstanding.get();
    }

    /** Sends the request {@code build} makes with a fresh id; its reply must be a {@code replyType}. */
    <T extends ControlMessage> Future<T> request(LongFunction<ControlMessage> build, Class<T> replyType, String what) {
        ReadFailure down = closed.get();
        if (down != null) {
            return failed(down);
        }
        if (outstanding.incrementAndGet() > maxOutstanding) {
            outstanding.decrementAndGet();
            return failed(ReadFailure.overloaded("agent " + peer + " is overloaded: " + maxOutstanding
                    + " requests outstanding"));
        }
        long id = nextRequestId.incrementAndGet();
        byte[] frame;
        try {
            frame = codec.encode(build.apply(id));
        } catch (ProtocolException e) {
            outstanding.decrementAndGet();
            return failed(e);
        }
        Pending waiting = new Pending(VertxInternals.promise(VertxInternals.callerContext(vertx)), what);
        pending.put(id, waiting);
        waiting.timerId = vertx.setTimer(timeoutMs, t -> {
            if (finish(id) == waiting) {
                waiting.promise.tryFail(new ReadFailure(ReadFailure.Kind.TIMEOUT, "agent " + peer + " did not answer "
                        + what + " within " + timeoutMs + " ms"));
            }
        });
        ReadFailure closedMeanwhile = closed.get();
        if (closedMeanwhile != null && finish(id) == waiting) { // closed between the check and the put
            waiting.promise.tryFail(closedMeanwhile);
        }
        channel.send(Buffer.buffer(frame)).onFailure(e -> {
            if (finish(id) == waiting) {
                waiting.promise.tryFail(ReadFailure.unavailable("sending " + what + " to agent " + peer + " failed: "
                        + e.getMessage(), e));
            }
        });
        return waiting.promise.future().map(reply -> {
            if (reply instanceof ErrorReply error) {
                throw new AgentError(error.code(), "agent " + peer + " answered " + what + " with " + error.code()
                        + (error.message().isEmpty() ? "" : ": " + error.message()), error.retriable());
            }
            if (!replyType.isInstance(reply)) {
                throw new IllegalStateException("agent " + peer + " answered " + what + " with " + reply.type());
            }
            return replyType.cast(reply);
        });
    }

    /** A reply: completes its request; false when none waits for it (it timed out already). */
    boolean complete(ControlMessage reply) {
        Pending waiting = finish(reply.requestId());
        if (waiting == null) {
            return false;
        }
        waiting.promise.tryComplete(reply);
        return true;
    }

    /** A reply that could not be decoded fails its request, when its id was readable. */
    void fail(long requestId, Throwable cause) {
        Pending waiting = requestId == 0 ? null : finish(requestId);
        if (waiting != null) {
            waiting.promise.tryFail(cause);
        }
    }

    /** Fails every request in flight (the connection closed). */
    void failAll() {
        for (Long id : List.copyOf(pending.keySet())) {
            Pending waiting = finish(id);
            if (waiting != null) {
                ReadFailure down = closed.get();
                waiting.promise.tryFail(down != null ? down : ReadFailure.unavailable("connection to agent " + peer
                        + " closed; " + waiting.what + " not answered", null));
            }
        }
    }

    /** Takes a request out of the table once (reply, timeout, send failure or close race for it). */
    private Pending finish(long id) {
        Pending waiting = pending.remove(id);
        if (waiting != null) {
            outstanding.decrementAndGet();
            vertx.cancelTimer(waiting.timerId);
        }
        return waiting;
    }

    private <T> Future<T> failed(Throwable cause) {
        return VertxInternals.onCallerContext(vertx, Future.failedFuture(cause));
    }
}
