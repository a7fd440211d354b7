package org.seaweedfs.rdma.metrics;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

class CoarseWallClockTest {

    private static void waitFor(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertTrue(condition.getAsBoolean(), what + " within 10 s");
    }

    @Test
    void wallTimeCatchesUpWithTheSystemClockAndIsNeverAheadOfIt() throws InterruptedException {
        CoarseWallClock clock = new CoarseWallClock("test-wall-clock-1");
        long before = System.currentTimeMillis() + 1; // surely later than any value the field held until now
        waitFor("a refreshed wall time", () -> clock.wallTime() >= before);
        assertTrue(clock.wallTime() <= System.currentTimeMillis(), "ahead of the system clock");
    }

    @Test
    void anUnreadClockSleepsAndAReadIsFreshAndWakesIt() throws InterruptedException {
        CoarseWallClock clock = new CoarseWallClock("test-wall-clock-2");
        waitFor("the unread clock's ticker asleep", clock::isDormant);
        Thread.sleep(3 * CoarseWallClock.TICK_MS); // the field is now older than the system's time
        long before = System.currentTimeMillis();
        assertTrue(clock.wallTime() >= before, "a read of a sleeping clock reads the system's time");
        long after = System.currentTimeMillis() + 1;
        waitFor("the woken ticker refreshing the field", () -> clock.wallTime() >= after);
    }

    @Test
    void theScrapedRegistryRunsOnIt() {
        try (RdmaMetrics metrics = RdmaMetrics.create()) {
            assertSame(CoarseWallClock.get(), metrics.registry().config().clock());
        }
    }
}
