package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.ucp.UcpRequest;

/**
 * One operation on a channel: queued by the caller, started on the owner thread, completed by UCX (or failed when
 * the channel fails), and delivered on the caller's context. Being its own UCX callback, loop task and completion
 * keeps the per-operation garbage to this object and its promise.
 */
abstract class ChannelOp<T> extends UcxCallback implements LoopTask, Runnable {

    final UcxChannel channel;
    private final Context context;
    private final Promise<T> promise = Promise.promise();
    private T result;
    private Throwable failure;
    private boolean done; // owner thread only

    ChannelOp(UcxChannel channel, Context context) {
        this.channel = channel;
        this.context = context;
    }

    Future<T> future() {
        return promise.future();
    }

    /** Owner thread: issues the UCX call; may complete synchronously. */
    abstract void start();

    /** What the operation is, for error messages. */
    abstract String describe();

    /** Owner thread (or the rejecting thread): frees what the operation holds. Called exactly once. */
    void release() {
    }

    /** Owner thread: bookkeeping for a success (metrics). */
    void succeeded() {
    }

    @Override
    public final void runOnLoop() {
        UcxTransportException unusable = channel.unusableReason();
        if (unusable != null) {
            fail(unusable);
            return;
        }
        channel.track(this);
        try {
            start();
        } catch (UcxException e) {
            fail(channel.operationError(describe(), e.getStatus(), e.getMessage()));
        }
    }

    @Override
    public final void onSuccess(UcpRequest request) {
        succeed(null);
    }

    @Override
    public final void onError(int ucsStatus, String errorMsg) {
        fail(channel.operationError(describe(), ucsStatus, errorMsg));
    }

    @Override
    public final void reject(UcxTransportException cause) {
        release();
        context.runOnContext(v -> promise.tryFail(cause));
    }

    final void succeed(T value) {
        if (done) {
            return;
        }
        done = true;
        result = value;
        channel.untrack(this);
        release();
        succeeded();
        channel.loop().complete(context, this);
    }

    final void fail(Throwable cause) {
        if (done) {
            return;
        }
        done = true;
        failure = cause;
        channel.untrack(this);
        release();
        channel.metrics().error();
        channel.loop().complete(context, this);
    }

    /** Runs on the caller's context. */
    @Override
    public final void run() {
        if (failure != null) {
            promise.tryFail(failure);
        } else {
            promise.tryComplete(result);
        }
    }
}
