package org.seaweedfs.rdma.sidecar.resilience;

import io.vertx.core.Context;
import org.seaweedfs.rdma.internals.VertxInternals;

/**
 * The time a read's hedge and deadline are measured in, and the wake-ups that make them fall due. The system clock
 * in production; tests drive one by hand, so no test waits on the wall clock.
 */
public interface ReadClock {

    /** Now, in nanoseconds of an arbitrary origin (as {@link System#nanoTime()}). */
    long nanoTime();

    /**
     * Runs {@code task} on the thread of {@code context} after {@code delayNanos}; false when it cannot (the event loop
     * is closing). On an event loop the task runs outside any context and needs no cancelling: it finds nothing due.
     */
    boolean schedule(Context context, long delayNanos, Runnable task);

    /** System time; an event loop's own scheduler (no Vert.x timer per wake-up), a Vert.x timer on other contexts. */
    static ReadClock system() {
        return new ReadClock() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public boolean schedule(Context context, long delayNanos, Runnable task) {
                if (context.isEventLoopContext()) {
                    return VertxInternals.schedule(context, task, delayNanos);
                }
                return context.owner().setTimer(Math.max(1, (delayNanos + 999_999) / 1_000_000), t -> task.run()) >= 0;
            }
        };
    }
}
