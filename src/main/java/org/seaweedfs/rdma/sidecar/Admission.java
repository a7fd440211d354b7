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
        for (;;) {
            int n = inFlight.get();
            if (n >= limit) {
                return false;
            }
            if (inFlight.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    public void release() {
        inFlight.decrementAndGet();
    }

    public int inFlight() {
        return inFlight.get();
    }

    public int limit() {
        return limit;
    }
}
