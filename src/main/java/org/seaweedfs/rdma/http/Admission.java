package org.seaweedfs.rdma.http;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds the needle reads served at once, across every HttpApiVerticle instance sharing it: a read
 * beyond the limit is refused at once (503 + Retry-After), never queued.
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
