package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpAmData;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucs.UcsConstants;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One UCX endpoint to a peer: control frames both ways and one-sided gets of the peer's registered memory.
 *
 * <p>Thread-safe: every method may be called from any thread; each returned future, and each handler, runs on the
 * Vert.x context that made the call (or set the handler). When the endpoint fails, the channel closes, every pending
 * operation fails with a {@link UcxTransportException}, and later calls fail at once.
 */
public final class UcxChannel {

    private static final Logger log = LoggerFactory.getLogger(UcxChannel.class);
    private static final AtomicLong IDS = new AtomicLong();
    private static final long CLOSE_TIMEOUT_MS = 5_000;

    private enum State { CONNECTING, OPEN, CLOSING, CLOSED }

    private final UcxWorkerVerticle owner;
    private final long id;
    private final InetSocketAddress peer;
    private final boolean accepted;
    private volatile State state = State.CONNECTING;
    private volatile UcxTransportException closeCause;
    private volatile byte[] peerWorkerAddress; // from the handshake; null: the peer gets no event-loop lanes

    // Owner-thread state.
    private UcpEndpoint endpoint;
    private long endpointId;
    private boolean endpointClosing;
    private final Set<ChannelOp<?>> pending = new HashSet<>();
    private final RemoteKeyCache keys;
    private final InboundFrames frames = new InboundFrames(this);
    private Handler<Throwable> closeHandler;
    private Context closeContext;
    private final List<Promise<Void>> closePromises = new ArrayList<>();
    private final List<Context> closePromiseContexts = new ArrayList<>();
    private Promise<UcxChannel> connectPromise;
    private Context connectContext;
    private UcxListener listener;

    UcxChannel(UcxWorkerVerticle owner, InetSocketAddress peer, boolean accepted) {
        this.owner = owner;
        this.id = IDS.incrementAndGet();
        this.peer = peer;
        this.accepted = accepted;
        this.keys = new RemoteKeyCache(this, owner.settings().maxRemoteKeys());
    }

    /** Process-unique id, for logs. */
    public long id() {
        return id;
    }

    /** The peer's address: the address connected to, or the client's address on an accepted channel. */
    public InetSocketAddress peerAddress() {
        return peer;
    }

    /** Whether this channel was accepted by a listener (rather than connected). */
    public boolean isAccepted() {
        return accepted;
    }

    /** Open: handshake done and neither closed nor failed. */
    public boolean isOpen() {
        return state == State.OPEN;
    }

    /** Sends one frame (copied before this returns, so the buffer may be reused). */
    public Future<Void> send(Buffer frame) {
        if (frame == null) {
            return Future.failedFuture(new IllegalArgumentException("frame must not be null"));
        }
        if (frame.length() > owner.settings().maxFrameBytes()) {
            return Future.failedFuture(new IllegalArgumentException("frame of " + frame.length()
                    + " bytes exceeds ucx.maxFrameBytes (" + owner.settings().maxFrameBytes() + ")"));
        }
        UcxTransportException unusable = unusableReason();
        if (unusable != null) {
            return Future.failedFuture(unusable);
        }
        SendFrameOp op = new SendFrameOp(this, owner.callerContext(), NativeMemory.directCopy(frame));
        loop().execute(op);
        return op.future();
    }

    /** Sets the handler of incoming frames; it runs on the calling context. Frames that came earlier are delivered. */
    public UcxChannel frameHandler(Handler<Buffer> handler) {
        Context context = owner.callerContext();
        loop().execute(LoopTask.of(() -> frames.setHandler(handler, context)));
        return this;
    }

    /**
     * Sets the handler told when the channel closes: with the failure when the endpoint failed or the peer went
     * away, with {@code null} after a local {@link #close()}. Runs at once if the channel is already closed.
     */
    public UcxChannel closeHandler(Handler<Throwable> handler) {
        Context context = owner.callerContext();
        loop().execute(LoopTask.of(() -> setCloseHandler(handler, context)));
        return this;
    }

    /**
     * Unpacks a peer's packed memory key, cached by content: unpacking the same bytes again returns the same key.
     * Each successful call is one hold on the key; {@link #releaseRemoteKey} drops it, and the key is closed once
     * no holder remains and no get that uses it is in flight (or when the channel closes). At most
     * {@code ucx.maxRemoteKeys} keys are held per channel; beyond that the unpack fails.
     */
    public Future<UcxRemoteKey> unpackRemoteKey(byte[] packed) {
        if (packed == null || packed.length == 0) {
            return Future.failedFuture(new IllegalArgumentException("packed remote key must not be empty"));
        }
        UcxTransportException unusable = unusableReason();
        if (unusable != null) {
            return Future.failedFuture(unusable);
        }
        UnpackKeyOp op = new UnpackKeyOp(this, owner.callerContext(), packed.clone());
        loop().execute(op);
        return op.future();
    }

    /**
     * Drops one hold on a key from {@link #unpackRemoteKey}. After the last one, new gets with the key fail
     * ({@link UcxRemoteKey#isValid()} turns false), gets already in flight finish, and then the key is closed.
     * Releasing a key of a closed channel, or more often than it was unpacked, does nothing.
     */
    public Future<Void> releaseRemoteKey(UcxRemoteKey key) {
        if (key == null || key.channel() != this) {
            return Future.failedFuture(new IllegalArgumentException(
                    "remote key must have been unpacked on this channel (" + this + ")"));
        }
        return owner.submit(owner.callerContext(), () -> {
            release(key);
            return null;
        }, stopped -> Future.succeededFuture()); // the worker stopped: its keys are gone anyway
    }

    /** Remote keys on this channel (unpacked, not fully released), for diagnostics and tests. */
    public Future<Integer> remoteKeyCount() {
        return onLoop(() -> keys.size());
    }

    /** Holds on this channel's remote keys: unpacks not yet released, for diagnostics and tests. */
    public Future<Integer> remoteKeyHolds() {
        return onLoop(keys::holds);
    }

    private Future<Integer> onLoop(java.util.function.IntSupplier count) {
        return owner.submit(owner.callerContext(), count::getAsInt, stopped -> Future.succeededFuture(0));
    }

    /**
     * Reads {@code length} bytes at {@code remoteAddress} of the peer's memory (described by {@code key}) into local
     * memory at {@code localAddress}, which should lie in a region registered with this worker.
     *
     * <p>Called on an event loop of the worker's Vert.x, the get runs on that event loop's lane (its own UCX worker and
     * endpoint to the peer), and may complete before this returns; from any other thread it goes through the
     * worker's owner thread.
     */
    public Future<Void> get(long remoteAddress, UcxRemoteKey key, long localAddress, long length) {
        if (key == null || key.channel() != this) {
            return Future.failedFuture(new IllegalArgumentException(
                    "remote key must have been unpacked on this channel (" + this + ")"));
        }
        if (length <= 0) {
            return Future.failedFuture(new IllegalArgumentException("get length must be positive, got " + length));
        }
        if (localAddress == 0) {
            return Future.failedFuture(new IllegalArgumentException("local address must not be 0"));
        }
        UcxTransportException unusable = unusableReason();
        if (unusable != null) {
            return Future.failedFuture(unusable);
        }
        LaneRegistry lanes = owner.lanes();
        Future<Void> onLane = lanes == null ? null : lanes.get(this, remoteAddress, key, localAddress, length);
        if (onLane != null) {
            return onLane;
        }
        GetOp op = new GetOp(this, owner.callerContext(), remoteAddress, key, localAddress, length);
        loop().execute(op);
        return op.future();
    }

    /** Flushes outstanding operations, then closes the endpoint; completes once it is closed. */
    public Future<Void> close() {
        Context context = owner.callerContext();
        return owner.hand(context, promise -> closeOrderly(promise, context), stopped -> Future.succeededFuture());
    }

    @Override
    public String toString() {
        return "ucx-channel#" + id + (accepted ? "(from " : "(to ") + hostPort(peer) + ")";
    }

    // ---- package-private, owner thread unless said otherwise ----

    WorkerLoop loop() {
        return owner.loop();
    }

    UcxMetrics metrics() {
        return owner.metrics();
    }

    UcpEndpoint endpoint() {
        return endpoint;
    }

    long endpointId() {
        return endpointId;
    }

    /** Any thread: the peer worker's address from the handshake, or null (an older peer: no lanes). */
    byte[] peerWorkerAddress() {
        return peerWorkerAddress;
    }

    /** Any thread: why a new operation cannot run, or null when it can. */
    UcxTransportException unusableReason() {
        State s = state;
        if (s == State.OPEN) {
            return null;
        }
        UcxTransportException cause = closeCause;
        if (cause != null) {
            return cause;
        }
        return new UcxTransportException(s == State.CONNECTING ? this + " is not connected yet" : this + " is closed");
    }

    UcxTransportException operationError(String what, int status, String message) {
        return new UcxTransportException("UCX " + what + " on " + this + " failed: " + message + " (status " + status + ")",
                status);
    }

    void track(ChannelOp<?> op) {
        if (pending.add(op)) {
            loop().operationStarted();
        }
    }

    void untrack(ChannelOp<?> op) {
        if (pending.remove(op)) {
            loop().operationFinished();
        }
        if (keys.hasRetiring()) {
            keys.closeRetired(pending);
        }
    }

    void attach(UcpEndpoint ep) {
        this.endpoint = ep;
        this.endpointId = ep.getNativeId();
    }

    void awaitHandshake(Promise<UcxChannel> promise, Context context) {
        this.connectPromise = promise;
        this.connectContext = context;
    }

    void acceptedBy(UcxListener l) {
        this.listener = l;
    }

    /** Server side: the client's hello arrived. Opens the channel, answers, hands it to the accept handler. */
    void helloReceived(byte[] workerAddress) {
        if (state != State.CONNECTING) {
            return;
        }
        peerWorkerAddress = workerAddress;
        state = State.OPEN;
        metrics().channelOpened();
        sendControl(ActiveMessages.HELLO_ACK);
        UcxListener l = listener;
        if (l != null) {
            loop().complete(l.acceptContext, () -> l.onAccept.handle(this));
        }
    }

    /** Client side: the server acknowledged the hello. */
    void helloAcknowledged(byte[] workerAddress) {
        if (state != State.CONNECTING) {
            return;
        }
        peerWorkerAddress = workerAddress;
        state = State.OPEN;
        metrics().channelOpened();
        Promise<UcxChannel> promise = connectPromise;
        connectPromise = null;
        if (promise != null) {
            loop().complete(connectContext, () -> promise.tryComplete(this));
        }
    }

    void sendHello() {
        sendControl(ActiveMessages.HELLO);
    }

    void handshakeTimedOut(long timeoutMs) {
        if (state == State.CONNECTING) {
            fail(new UcxTransportException("UCX handshake " + (accepted ? "from " : "with ") + hostPort(peer)
                    + " did not complete within " + timeoutMs + " ms"));
        }
    }

    /** Inside a UCX callback: an incoming frame. Copies the data out (it is only valid during the callback). */
    int frameArrived(UcpAmData data) {
        if (state != State.OPEN) {
            return UcsConstants.STATUS.UCS_OK;
        }
        long length = data.getLength();
        if (length > owner.settings().maxFrameBytes()) {
            metrics().error();
            fail(new UcxTransportException(hostPort(peer) + " sent a frame of " + length
                    + " bytes, more than ucx.maxFrameBytes (" + owner.settings().maxFrameBytes() + ") on " + this));
            return UcsConstants.STATUS.UCS_OK;
        }
        frames.arrived(data, length);
        return UcsConstants.STATUS.UCS_OK;
    }

    private void setCloseHandler(Handler<Throwable> handler, Context context) {
        if (state == State.CLOSED) {
            if (handler != null) {
                UcxTransportException cause = closeCause;
                loop().complete(context, () -> handler.handle(cause));
            }
            return;
        }
        closeHandler = handler;
        closeContext = context;
    }

    UcxSettings settings() {
        return owner.settings();
    }

    /** One more hold on the UCX memory key for the packed bytes, unpacked once per channel; null when full. */
    UcxRemoteKey remoteKey(byte[] packed) {
        return keys.hold(packed, endpoint);
    }

    /** Drops a hold; the last one takes the key out of the cache and closes it once no get uses it. */
    private void release(UcxRemoteKey key) {
        if (state != State.CLOSED && !endpointClosing && keys.release(key, pending)) {
            lanes().keyReleased(key);
        }
    }

    /** Inside a UCX callback or a task: the endpoint failed. Everything pending fails; the endpoint is force-closed. */
    void endpointFailed(int status, String message) {
        fail(new UcxTransportException("UCX endpoint " + this + " failed: " + message + " (status " + status + ")", status));
    }

    void fail(UcxTransportException cause) {
        if (state == State.CLOSED || endpointClosing) {
            return;
        }
        if (closeCause == null) {
            closeCause = cause;
        }
        state = State.CLOSING;
        log.debug("Closing " + this + ": " + cause.getMessage());
        // Never close an endpoint inside a UCX callback: do it right after this progress pass.
        loop().execute(LoopTask.of(() -> closeEndpoint(false)));
    }

    /** Owner thread, outside callbacks, after the worker was flushed: the worker stops. */
    void shutdown(UcxTransportException cause) {
        if (closeCause == null) {
            closeCause = cause;
        }
        closeEndpoint(true);
    }

    private void closeOrderly(Promise<Void> promise, Context context) {
        if (state == State.CLOSED) {
            loop().complete(context, promise::tryComplete);
            return;
        }
        closePromises.add(promise);
        closePromiseContexts.add(context);
        if (state == State.CLOSING) {
            return;
        }
        state = State.CLOSING;
        UcxCallback flushed = new UcxCallback() {
            @Override
            public void onSuccess(UcpRequest request) {
                loop().execute(LoopTask.of(() -> closeEndpoint(true)));
            }

            @Override
            public void onError(int ucsStatus, String errorMsg) {
                loop().execute(LoopTask.of(() -> closeEndpoint(false)));
            }
        };
        try {
            endpoint.flushNonBlocking(flushed);
        } catch (UcxException e) {
            closeEndpoint(false);
        }
    }

    /**
     * Owner thread, outside callbacks: closes the endpoint once and finishes when UCX says it is closed.
     * {@code afterFlush}: our own operations were flushed, so keys go first (the orderly order). The endpoint is
     * force-closed whenever peer error handling is on, even after a flush: UCX 1.13 aborts the process ("pending
     * request ... should have been flushed") when a flush-mode close meets replies to the peer's emulated gets still
     * queued on a TCP lane. Without peer error handling a forced close would be fatal for the peer, so it flushes.
     */
    void closeEndpoint(boolean afterFlush) {
        if (endpointClosing || state == State.CLOSED) {
            return;
        }
        endpointClosing = true;
        state = State.CLOSING;
        owner.forget(this);
        lanes().channelClosed(this, closeCause != null ? closeCause : new UcxTransportException(this + " is closed"));
        if (afterFlush) {
            keys.closeAll(); // orderly: keys before their endpoint
        }
        UcpRequest closing = null;
        if (endpoint != null) {
            try {
                closing = owner.settings().peerErrorHandling()
                        ? endpoint.closeNonBlockingForce() : endpoint.closeNonBlockingFlush();
            } catch (UcxException e) {
                log.debug("Closing the endpoint of " + this + " failed: " + e.getMessage());
            }
        }
        // A forced close purges the endpoint's requests (a flushing one only starts once ours completed): what is
        // still pending is failed now, and UCX's late callbacks for it are ignored.
        failPending();
        keys.closeAll();
        loop().watch(closing, CLOSE_TIMEOUT_MS, this::closed);
    }

    private void failPending() {
        if (pending.isEmpty()) {
            return;
        }
        UcxTransportException cause = closeCause != null ? closeCause : new UcxTransportException(this + " is closed");
        for (ChannelOp<?> op : new ArrayList<>(pending)) {
            op.fail(cause); // untracks it
        }
        for (int left = pending.size(); left > 0; left--) {
            loop().operationFinished();
        }
        pending.clear();
    }

    private void closed() {
        state = State.CLOSED;
        metrics().channelClosed();
        frames.clear();
        UcxTransportException cause = closeCause;
        Promise<UcxChannel> connect = connectPromise;
        connectPromise = null;
        if (connect != null) {
            UcxTransportException failure = cause != null ? cause
                    : new UcxTransportException("connection to " + hostPort(peer) + " was closed during the handshake");
            loop().complete(connectContext, () -> connect.tryFail(failure));
        }
        Handler<Throwable> handler = closeHandler;
        if (handler != null) {
            loop().complete(closeContext, () -> handler.handle(cause));
        }
        for (int i = 0; i < closePromises.size(); i++) {
            Promise<Void> p = closePromises.get(i);
            loop().complete(closePromiseContexts.get(i), p::tryComplete);
        }
        closePromises.clear();
        closePromiseContexts.clear();
        if (cause != null) {
            log.info("UCX channel closed: " + cause.getMessage());
        }
    }

    private LaneRegistry lanes() {
        return owner.lanes();
    }

    /** A handshake message, carrying this worker's address for the peer's lanes. */
    private void sendControl(int amId) {
        ByteBuffer address = owner.workerAddress();
        try {
            endpoint.sendAmNonBlocking(amId, 0L, 0L, UcxUtils.getAddress(address), address.remaining(),
                    ActiveMessages.SEND_FLAGS, new UcxCallback() {
                        @Override
                        public void onError(int ucsStatus, String errorMsg) {
                            // The endpoint error handler reports the failure; nothing else to do.
                        }
                    });
        } catch (UcxException e) {
            fail(operationError("handshake", e.getStatus(), e.getMessage()));
        }
    }

    static String hostPort(InetSocketAddress address) {
        return address == null ? "?" : address.getHostString() + ":" + address.getPort();
    }
}
