package org.seaweedfs.rdma.sidecar.connection;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.seaweedfs.rdma.internals.VertxInternals;

/**
 * The sidecar's start-up: open from its creation until every configured agent has been connected or given up on
 * for now (see {@link ConnectionManagerVerticle}). While it is open a read that finds no agent for its volume waits
 * here (its volume may be one a configured agent will list), instead of being answered as if no agent served it.
 *
 * <p>Waiters are bounded ({@code maxWaiters}: a reader past it is told at once that nothing changed) and hold a
 * promise and a timer each; every one completes on its caller's context. Any thread may wait; {@link #changed()}
 * and {@link #close()} may be called from any thread.
 */
public final class StartupWindow {

    private final int maxWaiters;
    private final AtomicInteger waiting = new AtomicInteger();
    private final Set<Waiter> waiters = ConcurrentHashMap.newKeySet();
    private volatile boolean open;
    /** The configured agents not connected yet, for messages ("a:1, b:2"). */
    private volatile String pending;

    private final class Waiter {
        final Vertx vertx;
        final Promise<Boolean> promise;
        volatile long timer = -1;

        Waiter(Vertx vertx) {
            this.vertx = vertx;
            promise = VertxInternals.promise(VertxInternals.callerContext(vertx));
        }

        /** Completes this waiter once, whoever gets here first (a change, the close, or its timer). */
        void finish(boolean changed) {
            if (waiters.remove(this)) {
                waiting.decrementAndGet();
                if (timer >= 0 && changed) {
                    vertx.cancelTimer(timer);
                }
                promise.complete(changed);
            }
        }
    }

    /**
     * @param pending    the configured agents, as named in messages; none: the window is closed from the start
     * @param maxWaiters reads waiting at once, at least 1
     */
    public StartupWindow(String pending, int maxWaiters) {
        if (maxWaiters < 1) {
            throw new IllegalArgumentException("maxWaiters must be >= 1, got " + maxWaiters);
        }
        this.maxWaiters = maxWaiters;
        this.pending = pending;
        this.open = !pending.isEmpty();
    }

    /** Whether the sidecar is still starting. Cheap: read on every read that finds no agent. */
    public boolean isOpen() {
        return open;
    }

    /** The configured agents not connected yet ("" once closed). */
    public String pending() {
        return pending;
    }

    /** Reads waiting now. */
    public int waiting() {
        return waiting.get();
    }

    /**
     * Completes on the caller's context with true at the next change (an agent connected, or the window closed; at
     * once when it is closed already), with false after {@code timeoutMs} or at once when {@code maxWaiters} reads
     * wait already. Never fails.
     */
    public Future<Boolean> nextChange(Vertx vertx, long timeoutMs) {
        if (!open) {
            return Future.succeededFuture(true);
        }
        if (timeoutMs <= 0 || waiting.incrementAndGet() > maxWaiters) {
            if (timeoutMs > 0) {
                waiting.decrementAndGet();
            }
            return Future.succeededFuture(false);
        }
        Waiter waiter = new Waiter(vertx);
        waiters.add(waiter);
        // A change may finish the waiter before its timer is set: that timer then fires into a finished waiter.
        waiter.timer = vertx.setTimer(timeoutMs, t -> waiter.finish(false));
        if (!open) {
            waiter.finish(true); // closed while this waiter was being added: close() may not have seen it
        }
        return waiter.promise.future();
    }

    /** Something a waiting read may route by happened (an agent connected): every waiter looks again. */
    void changed(String stillPending) {
        pending = stillPending;
        wakeAll();
    }

    /** Start-up is over: every waiter looks again, and no read waits from now on. */
    void close() {
        pending = "";
        open = false;
        wakeAll();
    }

    private void wakeAll() {
        for (Waiter w : waiters) {
            w.finish(true);
        }
    }
}
