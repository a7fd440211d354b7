package org.seaweedfs.rdma.metrics;

import io.micrometer.core.instrument.Clock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The Prometheus registry's clock: monotonic time as the system gives it, wall time from a field that one daemon
 * thread per JVM refreshes every {@value #TICK_MS} ms. Micrometer reads wall time on every record of a timer or
 * distribution summary, only to rotate the windows of its decaying max and histograms (each 40 s long by default);
 * a 4 KiB read records five such meters, two or three clock reads each, which cost about 1 % of the sidecar's CPU
 * per request (BENCHMARKS.md, fifteenth session). A window may rotate up to one tick late; nothing else reads it.
 */
final class CoarseWallClock implements Clock {

    static final long TICK_MS = 10;

    private static final class Holder { // started on first use, not when the class is merely loaded
        static final CoarseWallClock CLOCK = new CoarseWallClock();
    }

    private volatile long wallMillis = System.currentTimeMillis();

    private CoarseWallClock() {
        Thread ticker = new Thread(this::tick, "metrics-wall-clock");
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
        }
    }

    @Override
    public long wallTime() {
        return wallMillis;
    }

    @Override
    public long monotonicTime() {
        return System.nanoTime();
    }
}
