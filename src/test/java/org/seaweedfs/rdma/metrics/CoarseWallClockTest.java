package org.seaweedfs.rdma.metrics;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CoarseWallClockTest {

    @Test
    void wallTimeCatchesUpWithTheSystemClockAndIsNeverAheadOfIt() throws InterruptedException {
        CoarseWallClock clock = CoarseWallClock.get();
        long before = System.currentTimeMillis() + 1; // surely later than any value the field held until now
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (clock.wallTime() < before && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        long seen = clock.wallTime();
        assertTrue(seen >= before, "the wall clock was not refreshed in 10 s: " + seen + " < " + before);
        assertTrue(seen <= System.currentTimeMillis(), "ahead of the system clock");
    }

    @Test
    void theScrapedRegistryRunsOnIt() {
        try (RdmaMetrics metrics = RdmaMetrics.create()) {
            assertSame(CoarseWallClock.get(), metrics.registry().config().clock());
        }
    }
}
