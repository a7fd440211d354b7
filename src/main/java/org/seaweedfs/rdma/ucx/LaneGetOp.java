package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.ucp.UcpRequest;

/**
 * A get issued on an event-loop lane. UCX calls back inside the lane worker's {@code progress()} (or inside
 * {@code getNonBlocking} when it completes at once); the callback only records the outcome and queues the op, and the
 * {@link LaneWorker} completes the promise afterwards on the caller's context, on the same thread.
 */
final class LaneGetOp extends UcxCallback implements Handler<Void> {

    final EventLoopLane lane;
    final Context context; // an event loop's, current on the lane's thread
    final EventLoopLane.LaneKey key; // null when the get failed before it was issued
    /** A batch's other key copies (each held once), null for one get. */
    EventLoopLane.LaneKey[] moreKeys;
    final long remoteAddress;
    /** Bytes of its gets. */
    final long length;
    /** Gets it stands for: 1, or a batch's size. */
    final int count;
    /** A batch whose posting failed part way: its outcome once the gets posted are flushed. */
    Throwable postFailure;
    private final Promise<Void> promise = Promise.promise();
    private boolean done;
    private Throwable failure;
    // The lane's list of gets in flight (intrusive: no allocation per get).
    LaneGetOp prev;
    LaneGetOp next;

    LaneGetOp(EventLoopLane lane, Context context, EventLoopLane.LaneKey key, long remoteAddress, long length) {
        this(lane, context, key, remoteAddress, length, 1);
    }

    /** A batch of {@code count} gets of {@code length} bytes in all, the first at {@code remoteAddress}. */
    LaneGetOp(EventLoopLane lane, Context context, EventLoopLane.LaneKey key, long remoteAddress, long length,
              int count) {
        this.lane = lane;
        this.context = context;
        this.key = key;
        this.remoteAddress = remoteAddress;
        this.length = length;
        this.count = count;
    }

    Future<Void> future() {
        return promise.future();
    }

    boolean isDone() {
        return done;
    }

    boolean succeeded() {
        return done && failure == null;
    }

    /**
     * Records the outcome once and queues the op for delivery; later outcomes (a purge after a failure) are ignored.
     */
    void finish(Throwable cause) {
        if (!done) {
            done = true;
            failure = cause;
            lane.worker.completed(this);
        }
    }

    @Override
    public void onSuccess(UcpRequest request) {
        finish(null);
    }

    @Override
    public void onError(int ucsStatus, String errorMsg) {
        finish(lane.channel.operationError(describe(), ucsStatus, errorMsg));
    }

    String describe() {
        return (count == 1 ? "get of " : count + " gets of ") + length + " bytes at 0x"
                + Long.toHexString(remoteAddress) + (count == 1 ? "" : "...") + " (event-loop lane)";
    }

    /** On the caller's context: hands the outcome to the caller. */
    @Override
    public void handle(Void ignored) {
        if (failure != null) {
            promise.tryFail(failure);
        } else {
            promise.tryComplete();
        }
    }
}
