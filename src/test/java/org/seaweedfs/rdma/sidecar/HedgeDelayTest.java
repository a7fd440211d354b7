package org.seaweedfs.rdma.sidecar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The hedge delay: an agent's recent p99, between a floor and a ceiling derived from the deadline. */
class HedgeDelayTest {

    private static final long DEADLINE = TimeUnit.SECONDS.toNanos(5);

    @Test
    void untilAWindowIsFullTheDelayIsTheCeiling() {
        HedgeDelay delay = new HedgeDelay(DEADLINE);
        for (int i = 0; i < HedgeDelay.WINDOW - 1; i++) {
            delay.record(TimeUnit.MILLISECONDS.toNanos(2));
        }
        assertEquals(DEADLINE / 4, delay.nanos());
    }

    @Test
    void theDelayFollowsTheNinetyNinthPercentile() {
        HedgeDelay delay = new HedgeDelay(DEADLINE);
        for (int i = 0; i < HedgeDelay.WINDOW; i++) {
            delay.record(TimeUnit.MILLISECONDS.toNanos(i % 100 == 99 ? 200 : 20)); // 1 % at 200 ms
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(delay.nanos());
        assertTrue(ms >= 19 && ms <= 21, "the p99 of reads mostly at 20 ms: " + ms + " ms");
        for (int i = 0; i < 2 * HedgeDelay.WINDOW; i++) {
            delay.record(TimeUnit.MILLISECONDS.toNanos(100));
        }
        ms = TimeUnit.NANOSECONDS.toMillis(delay.nanos());
        assertTrue(ms >= 99 && ms <= 101, "recent reads count, older windows age out: " + ms + " ms");
    }

    @Test
    void theDelayIsHeldBetweenTheFloorAndTheCeiling() {
        HedgeDelay fast = new HedgeDelay(DEADLINE);
        HedgeDelay slow = new HedgeDelay(DEADLINE);
        for (int i = 0; i < HedgeDelay.WINDOW; i++) {
            fast.record(TimeUnit.MICROSECONDS.toNanos(50));
            slow.record(TimeUnit.SECONDS.toNanos(4));
        }
        assertEquals(DEADLINE / 1000, fast.nanos(), "the floor: jitter below it is no reason to hedge");
        assertEquals(DEADLINE / 4, slow.nanos(), "the ceiling: the hedge keeps most of the deadline");
    }
}
