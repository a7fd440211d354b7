package org.seaweedfs.rdma.sidecar.resilience;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * TEST DOUBLE of the read clock: time stands still until the test moves it, and a move runs the wake-ups that fell
 * due, in their order, each on its context's thread; so a test of hedges and deadlines waits on events, not time.
 */
final class ManualReadClock implements ReadClock {

    private record Wakeup(long at, Context context, Runnable task) {
    }

    private final List<Wakeup> wakeups = new ArrayList<>();
    private long now = 1_000_000_000L;

    @Override
    public synchronized long nanoTime() {
        return now;
    }

    @Override
    public synchronized boolean schedule(Context context, long delayNanos, Runnable task) {
        wakeups.add(new Wakeup(now + delayNanos, context, task));
        return true;
    }

    /** Wake-ups not run yet. */
    synchronized int pending() {
        return wakeups.size();
    }

    /** Moves time on by {@code by}; completes once every wake-up that fell due has run. */
    Future<Void> advance(Duration by) {
        List<Wakeup> due = new ArrayList<>();
        synchronized (this) {
            now += by.toNanos();
            for (Wakeup w : wakeups) {
                if (w.at() - now <= 0) {
                    due.add(w);
                }
            }
            wakeups.removeAll(due);
        }
        due.sort(Comparator.comparingLong(Wakeup::at));
        Future<Void> ran = Future.succeededFuture();
        for (Wakeup w : due) {
            ran = ran.compose(v -> {
                Promise<Void> done = Promise.promise();
                w.context().runOnContext(x -> {
                    w.task().run();
                    done.complete();
                });
                return done.future();
            });
        }
        return ran;
    }
}
