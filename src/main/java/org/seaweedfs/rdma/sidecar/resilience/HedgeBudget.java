package org.seaweedfs.rdma.sidecar.resilience;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bounds hedges to a small share of reads: a token bucket filled by completed reads, {@value #READS_PER_HEDGE} of
 * them earning one hedge, holding at most {@value #BURST} hedges. A hedge that won while faster than the hedge delay
 * is given back: it showed the first source was the slow one, not every source alike, so a hung agent's reads all
 * fail over while a host slow everywhere sees few hedges (they lose, or win only slowly, and the bucket runs dry).
 * Thread-safe.
 */
final class HedgeBudget {

    /** Completed reads that earn one hedge: in steady state at most about one read in a hundred is hedged. */
    static final int READS_PER_HEDGE = 100;
    /** Hedges the bucket holds: a burst of reads caught by one stall may all be hedged at once. */
    static final int BURST = 16;
    private static final long CAPACITY = (long) BURST * READS_PER_HEDGE;

    private final AtomicLong credits = new AtomicLong(CAPACITY);

    /** A read completed (on any path): a hundredth of a hedge more, up to the bucket's size. */
    void readCompleted() {
        if (credits.get() < CAPACITY) {
            credits.incrementAndGet();
        }
    }

    /** Takes one hedge; false when the bucket is dry. */
    boolean tryTake() {
        long now;
        do {
            now = credits.get();
            if (now < READS_PER_HEDGE) {
                return false;
            }
        } while (!credits.compareAndSet(now, now - READS_PER_HEDGE));
        return true;
    }

    /** Gives a hedge back (one that proved the first source slow). */
    void giveBack() {
        credits.getAndUpdate(c -> Math.min(CAPACITY, c + READS_PER_HEDGE));
    }

    /** Whole hedges left; for tests and operators. */
    long hedgesLeft() {
        return credits.get() / READS_PER_HEDGE;
    }
}
