package org.seaweedfs.rdma.metrics;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.testing.Await;

class CoarseWallClockTest {

    @Test
    void wallTimeCatchesUpWithTheSystemClockAndIsNeverAheadOfIt() {
        CoarseWallClock clock = new CoarseWallClock("test-wall-clock-1");
        long before = System.currentTimeMillis() + 1; // surely later than any value the field held until now
        Await.until("a refreshed wall time", () -> clock.wallTime() >= before);
        assertTrue(clock.wallTime() <= System.currentTimeMillis(), "ahead of the system clock");
    }

    @Test
    void anUnreadClockSleepsAndAReadIsFreshAndWakesIt() {
        CoarseWallClock clock = new CoarseWallClock("test-wall-clock-2");
        Await.until("the unread clock's ticker asleep", clock::isDormant);
        long asleep = System.currentTimeMillis();
        // the field is now older than the system's time
        Await.until("the system clock moved on", () -> System.currentTimeMillis() > asleep + 2 * CoarseWallClock.TICK_MS);
        long before = System.currentTimeMillis();
        assertTrue(clock.wallTime() >= before, "a read of a sleeping clock reads the system's time");
        long after = System.currentTimeMillis() + 1;
        Await.until("the woken ticker refreshing the field", () -> clock.wallTime() >= after);
    }

    @Test
    void theScrapedRegistryRunsOnIt() {
        try (RdmaMetrics metrics = RdmaMetrics.create()) {
            assertSame(CoarseWallClock.get(), metrics.registry().config().clock());
        }
    }
}
