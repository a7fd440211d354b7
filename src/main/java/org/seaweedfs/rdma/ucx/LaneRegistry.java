package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.openucx.jucx.ucp.UcpContext;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The event-loop lane workers of one {@link UcxWorkerVerticle}, one per event loop of its Vert.x instance that issued
 * a get, made on first use. Decides which gets run on a lane (issued on an event loop, on a channel whose peer sent
 * its worker address) and which take the owner path; forwards channel closes and key releases to every worker's
 * thread; closes them all before the owner thread closes the shared UCX context.
 */
final class LaneRegistry {

    private final UcxWorkerVerticle owner;
    private final Vertx vertx;
    private final UcpContext context;
    private final Map<Thread, LaneWorker> workers = new ConcurrentHashMap<>();
    private volatile boolean closed; // written under this registry's lock

    LaneRegistry(UcxWorkerVerticle owner, Vertx vertx, UcpContext context) {
        this.owner = owner;
        this.vertx = vertx;
        this.context = context;
    }

    /** Any thread: the get on the calling event loop's lane, or null when it must take the owner path. */
    Future<Void> get(UcxChannel channel, long remoteAddress, UcxRemoteKey key, long localAddress, long length) {
        Context caller = laneCaller(channel);
        LaneWorker worker = caller == null ? null : workerOf(caller);
        return worker == null ? null : worker.get(caller, channel, remoteAddress, key, localAddress, length);
    }

    /** Any thread: the batch on the calling event loop's lane, or null when it must take the owner path. */
    Future<Void> getAll(UcxChannel channel, GetBatch batch) {
        Context caller = laneCaller(channel);
        LaneWorker worker = caller == null ? null : workerOf(caller);
        return worker == null ? null : worker.getAll(caller, channel, batch);
    }

    /** Any thread: the peer's memory where it lies, on the calling event loop's lane, or null ({@link PeerView}). */
    PeerView view(UcxChannel channel, UcxRemoteKey key, PeerFile file, long regionAddress, long regionLength,
                  long remoteAddress, int length, boolean sameCall) {
        Context caller = laneCaller(channel);
        LaneWorker worker = caller == null ? null : workerOf(caller);
        return worker == null ? null
                : worker.view(channel, key, file, regionAddress, regionLength, remoteAddress, length, sameCall);
    }

    /** Any thread: views of the peer's region for one call, on the calling event loop's lane, or null. */
    PeerViews views(UcxChannel channel, UcxRemoteKey key, PeerFile file, long regionAddress, long regionLength) {
        Context caller = laneCaller(channel);
        LaneWorker worker = caller == null ? null : workerOf(caller);
        return worker == null ? null : worker.views(channel, key, file, regionAddress, regionLength);
    }

    /** Any thread: the peer's memory where it lies, on the calling event loop's lane, handed to {@code use}. */
    boolean view(UcxChannel channel, UcxRemoteKey key, PeerFile file, long regionAddress, long regionLength,
                 long remoteAddress, int length, Handler<PeerView> use) {
        Context caller = laneCaller(channel);
        LaneWorker worker = caller == null ? null : workerOf(caller);
        return worker != null
                && worker.view(caller, channel, key, file, regionAddress, regionLength, remoteAddress, length, use);
    }

    /**
     * The calling event loop's context when a lane may serve its gets to the channel's peer, else null. Event loops of
     * this verticle's Vert.x only: their lifetime covers the verticle's, so stop can close lanes.
     */
    private Context laneCaller(UcxChannel channel) {
        if (closed || channel.peerWorkerAddress() == null) {
            return null;
        }
        return VertxInternals.currentEventLoopOf(vertx);
    }

    /** The calling event loop's lane worker, made on first use; null once the registry closed. */
    private LaneWorker workerOf(Context caller) {
        LaneWorker worker = workers.get(Thread.currentThread());
        return worker != null ? worker : open(caller);
    }

    /** Under the lock, so that {@link #closeAll} sees every worker made before it and none after. */
    private synchronized LaneWorker open(Context caller) {
        if (closed) {
            return null;
        }
        LaneWorker worker = LaneWorker.open(owner, VertxInternals.eventLoop(caller), context);
        workers.put(Thread.currentThread(), worker);
        return worker;
    }

    /** Owner thread: the channel is closing; each event loop closes its lane to it. */
    void channelClosed(UcxChannel channel, UcxTransportException cause) {
        for (LaneWorker worker : workers.values()) {
            worker.execute(() -> worker.channelClosed(channel, cause));
        }
    }

    /** Owner thread: the key's last holder released it; each lane closes its copy after its gets with it. */
    void keyReleased(UcxRemoteKey key) {
        for (LaneWorker worker : workers.values()) {
            worker.execute(() -> worker.keyReleased(key));
        }
    }

    /** Lane workers made so far (for diagnostics and tests). */
    int workerCount() {
        return workers.size();
    }

    /**
     * Closes every lane worker on its own event loop. Completes with true once all are closed, false when one could
     * not be reached or did not finish within {@code timeoutMs} (the UCX context must then stay open).
     */
    Future<Boolean> closeAll(UcxTransportException cause, long timeoutMs) {
        List<LaneWorker> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(workers.values());
            workers.clear();
        }
        List<Future<Boolean>> closing = new ArrayList<>();
        for (LaneWorker worker : all) {
            Promise<Boolean> done = Promise.promise();
            if (!worker.execute(() -> worker.close(cause, timeoutMs, done))) {
                done.complete(false);
            }
            closing.add(done.future());
        }
        if (closing.isEmpty()) {
            return Future.succeededFuture(true);
        }
        Promise<Boolean> result = Promise.promise();
        long timer = vertx.setTimer(timeoutMs + 1_000, id -> result.tryComplete(false));
        Future.join(closing).onComplete(ar -> {
            vertx.cancelTimer(timer);
            result.tryComplete(closing.stream().allMatch(f -> f.succeeded() && f.result()));
        });
        return result.future();
    }
}
