package org.seaweedfs.rdma.metrics;

import io.micrometer.core.instrument.Clock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The Prometheus registry's clock: monotonic time as the system gives it, wall time from a field that one daemon
 * thread per JVM refreshes every {@value #TICK_MS} ms. Micrometer reads wall time on every record of a timer or
 * distribution summary, only to rotate the windows of its decaying max and histograms (each 40 s long by default);
 * a 4 KiB read records five such meters, two or three clock reads each, which cost about 1 % of the sidecar's CPU
 * per request. A window may rotate up to one tick late; nothing else reads it.
 *
 * <p>An idle process should not wake a hundred times a second: after a tick in which nobody read the clock, the
 * thread sleeps until the next read, which gets the system's time itself and wakes it.
 */
final class CoarseWallClock implements Clock {

    static final long TICK_MS = 10;

    private static final class Holder { // started on first use, not when the class is merely loaded
        static final CoarseWallClock CLOCK = new CoarseWallClock("metrics-wall-clock");
    }

    private final Thread ticker;
    private volatile long wallMillis = System.currentTimeMillis();
    /** Read since the last tick (set by readers only when clear: one write per tick under load). */
    private volatile boolean read = true;
    /** The ticker sleeps until a reader wakes it; readers meanwhile read the system's clock. */
    private volatile boolean dormant;

    CoarseWallClock(String threadName) {
        ticker = new Thread(this::tick, threadName);
        ticker.setDaemon(true);
        ticker.start();
    }

    static CoarseWallClock get() {
        return Holder.CLOCK;
    }

    private void tick() {
        long tickNanos = TimeUnit.MILLISECONDS.toNanos(TICK_MS);
        while (true) {
            LockSupport.parkNanos(tickNanos);
            wallMillis = System.currentTimeMillis();
            if (!read) {
                dormant = true;
                while (dormant) {
                    LockSupport.park(); // until a reader clears dormant and unparks (or a spurious wake-up)
                }
                wallMillis = System.currentTimeMillis();
            }
            read = false;
        }
    }

    @Override
    public long wallTime() {
        if (dormant) {
            long now = System.currentTimeMillis();
            wallMillis = now; // before waking: a reader that sees the ticker awake must see a fresh time
            dormant = false;
            LockSupport.unpark(ticker);
            return now;
        }
        if (!read) {
            read = true;
        }
        return wallMillis;
    }

    @Override
    public long monotonicTime() {
        return System.nanoTime();
    }

    /** Whether the ticker sleeps until the next read; for tests. */
    boolean isDormant() {
        return dormant;
    }
}
