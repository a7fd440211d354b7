package org.seaweedfs.rdma.sidecar;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A bound on things held at once, refused beyond it (never queued): the sidecar's one admission of needle reads
 * ({@code sidecar.maxInFlightReads}), taken once per read by whichever face received it (HTTP, the event bus, the
 * typed client) and held until its answer is handed over; and the HTTP listener's connection slots. Thread-safe.
 */
public final class Admission {

    private final int limit;
    private final AtomicInteger inFlight = new AtomicInteger();

    public Admission(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("admission limit must be positive: " + limit);
        }
        this.limit = limit;
    }

    public boolean tryAcquire() {
        return tryAcquireUpTo(1) == 1;
    }

    /** Takes up to {@code count} slots at once, as many as are free; returns how many it took. */
    public int tryAcquireUpTo(int count) {
        for (;;) {
            int n = inFlight.get();
            int taken = Math.min(count, limit - n);
            if (taken <= 0) {
                return 0;
            }
            if (inFlight.compareAndSet(n, n + taken)) {
                return taken;
            }
        }
    }

    public void release() {
        inFlight.decrementAndGet();
    }

    public void release(int count) {
        inFlight.addAndGet(-count);
    }

    public int inFlight() {
        return inFlight.get();
    }

    public int limit() {
        return limit;
    }
}
