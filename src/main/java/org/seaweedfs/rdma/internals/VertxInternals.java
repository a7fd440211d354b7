package org.seaweedfs.rdma.internals;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.EventExecutor;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.internal.buffer.BufferInternal;

import java.nio.ByteBuffer;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The one door to Vert.x internal APIs, used where nothing public does the job: the event-loop lanes need the
 * caller's Netty event loop, a completion must land on a given context
 * (not merely "a" context), read deadlines need a timer no deployment owns, and zero-copy buffers need the Netty
 * {@link ByteBuf} behind a Vert.x {@link Buffer}, the start-up log names the transport Vert.x runs on, and the
 * event-bus consumers are spread over the event loops an application's {@link Vertx} has. Everything else uses the
 * public API.
 */
public final class VertxInternals {

    private VertxInternals() {
    }

    /** The calling thread's context, or the Vert.x instance's when called from outside any. */
    public static Context callerContext(Vertx vertx) {
        Context current = Vertx.currentContext();
        return current != null ? current : vertx.getOrCreateContext();
    }

    /** A promise whose future's handlers run on {@code context}. */
    public static <T> Promise<T> promise(Context context) {
        return ((ContextInternal) context).promise();
    }

    /** {@code future}'s outcome, delivered on the caller's context (see {@link #callerContext}). */
    public static <T> Future<T> onCallerContext(Vertx vertx, Future<T> future) {
        Promise<T> promise = promise(callerContext(vertx));
        future.onComplete(promise);
        return promise.future();
    }

    /** A Vert.x buffer over {@code buf} without copying (the buffer owns {@code buf}'s reference). */
    public static Buffer wrap(ByteBuf buf) {
        return BufferInternal.buffer(buf);
    }

    /** The readable bytes of {@code buffer} as an NIO view where possible, a copy otherwise. */
    public static ByteBuffer nioView(Buffer buffer) {
        return buffer instanceof BufferInternal internal
                ? internal.getByteBuf().nioBuffer() : ByteBuffer.wrap(buffer.getBytes());
    }

    /** The Netty buffer behind {@code buffer}, or null when it has none. */
    public static ByteBuf byteBuf(Buffer buffer) {
        return buffer instanceof BufferInternal internal ? internal.getByteBuf() : null;
    }

    /** The current context when it is an event loop of {@code vertx} and this is its thread, otherwise null. */
    public static Context currentEventLoopOf(Vertx vertx) {
        ContextInternal caller = ContextInternal.current();
        return caller != null && caller.isEventLoopContext() && caller.inThread() && caller.owner() == vertx
                ? caller : null;
    }

    /** How many event loops {@code vertx} runs (its event-loop pool). */
    public static int eventLoops(Vertx vertx) {
        int loops = 0;
        for (EventExecutor ignored : ((VertxInternal) vertx).nettyEventLoopGroup()) {
            loops++;
        }
        return loops;
    }

    /** The Netty event loop that runs the tasks of {@code context} (one from {@link #currentEventLoopOf}). */
    public static EventLoop eventLoop(Context context) {
        return ((ContextInternal) context).nettyEventLoop();
    }

    /**
     * Runs {@code handler} on {@code context} now, the caller being on its thread (one from
     * {@link #currentEventLoopOf}): no task is queued and nothing is allocated.
     */
    public static void emit(Context context, Handler<Void> handler) {
        ((ContextInternal) context).emit(null, handler);
    }

    /**
     * Runs {@code task} on the event loop of {@code context} (an event-loop context) after {@code delayNanos}, outside
     * any context: unlike a Vert.x timer it belongs to no deployment, so no undeployed verticle cancels it. False when
     * the event loop is shutting down and takes no more tasks.
     */
    public static boolean schedule(Context context, Runnable task, long delayNanos) {
        try {
            ((ContextInternal) context).nettyEventLoop().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** The class of the transport {@code vertx} runs on (Vert.x names it only internally). */
    public static Class<?> transportClass(Vertx vertx) {
        return ((VertxInternal) vertx).transport().getClass();
    }
}
