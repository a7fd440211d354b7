package org.seaweedfs.rdma.sidecar;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * How long a read waits on one agent before it is hedged, or before the agent counts as late for an erasure-coded
 * volume's shard: the time nearly all of that agent's recent reads took (their {@value #PERCENTILE}th percentile over
 * the last two windows of {@value #WINDOW} reads), held between a floor and a ceiling derived from the read's
 * deadline. The floor keeps jitter below it from hedging; the ceiling leaves the hedge most of the deadline. Until a
 * window is full the delay is the ceiling. Thread-safe: recording is wait-free, and the one recording that fills a
 * window computes the new delay.
 */
public final class HedgeDelay {

    public static final double PERCENTILE = 99.0;
    /** Reads per window: a 99th percentile over two windows rests on ten reads above it. */
    public static final int WINDOW = 512;
    /** The floor is this share of the deadline (5 ms of 5 s). */
    private static final int FLOOR_DIVISOR = 1000;
    /** The ceiling is this share of the deadline (a quarter: the hedge keeps three quarters). */
    private static final int CEILING_DIVISOR = 4;

    private final long floorNanos;
    private final long ceilingNanos;
    private final Recorder recorder = new Recorder(2);
    private final AtomicInteger recorded = new AtomicInteger();
    private final AtomicBoolean computing = new AtomicBoolean();
    private Histogram previous;
    private Histogram interval;
    private volatile long nanos;

    /** @param deadlineNanos the read's deadline, which sets the floor and the ceiling */
    public HedgeDelay(long deadlineNanos) {
        this.floorNanos = Math.max(1, deadlineNanos / FLOOR_DIVISOR);
        this.ceilingNanos = Math.max(floorNanos, deadlineNanos / CEILING_DIVISOR);
        this.nanos = ceilingNanos;
    }

    /** The current delay. */
    public long nanos() {
        return nanos;
    }

    /** One read of this agent answered after {@code latencyNanos}. */
    public void record(long latencyNanos) {
        recorder.recordValue(Math.max(1, latencyNanos / 1_000));
        if (recorded.incrementAndGet() % WINDOW == 0 && computing.compareAndSet(false, true)) {
            try {
                compute();
            } finally {
                computing.set(false);
            }
        }
    }

    private void compute() {
        Histogram done = recorder.getIntervalHistogram(previous);
        previous = interval;
        interval = done;
        Histogram both = done.copy();
        if (previous != null) {
            both.add(previous);
        }
        long p = both.getValueAtPercentile(PERCENTILE) * 1_000;
        nanos = Math.min(ceilingNanos, Math.max(floorNanos, p));
    }
}
