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
        return tryAcquire(1);
    }

    /** Takes {@code count} slots at once, or none when fewer are free. */
    public boolean tryAcquire(int count) {
        for (;;) {
            int n = inFlight.get();
            if (n > limit - count) {
                return false;
            }
            if (inFlight.compareAndSet(n, n + count)) {
                return true;
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
