package org.seaweedfs.rdma.sidecar.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {

    private static final Duration QUICK = Duration.ofMillis(500);
    private static final Duration QUICK_PERIOD = Duration.ofSeconds(30);

    @Test
    void withoutAQuickPhaseTheCeilingDoublesFromTheBaseUpToTheMax() {
        Backoff b = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(30), () -> 0.5);
        assertEquals(200, b.ceilingMillis(0, 0));
        assertEquals(400, b.ceilingMillis(1, 0));
        assertEquals(25_600, b.ceilingMillis(7, 60_000));
        assertEquals(30_000, b.ceilingMillis(8, 0));
        assertEquals(30_000, b.ceilingMillis(61, 0));
        assertEquals(30_000, b.ceilingMillis(Integer.MAX_VALUE, 0));
    }

    @Test
    void fullJitterStaysWithinOneMillisecondAndTheCeiling() {
        assertEquals(1, new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), () -> 0.0).delayMillis(3, 0));
        assertEquals(800,
                new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), () -> 0.9999999).delayMillis(3, 0));
        assertEquals(1000,
                new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), () -> 0.9999999).delayMillis(20, 0));
        Random random = new Random(42);
        Backoff b = new Backoff(Duration.ofMillis(10), Duration.ofMillis(500), random::nextDouble);
        long seenLow = Long.MAX_VALUE;
        long seenHigh = 0;
        for (int failures = 0; failures < 12; failures++) {
            for (int i = 0; i < 2_000; i++) {
                long d = b.delayMillis(failures, 0);
                assertTrue(d >= 1 && d <= b.ceilingMillis(failures, 0), "delay " + d + " after " + failures
                        + " failures");
                if (failures == 11) {
                    seenLow = Math.min(seenLow, d);
                    seenHigh = Math.max(seenHigh, d);
                }
            }
        }
        // Full jitter: the whole range is used, not only its top.
        assertTrue(seenLow < 50 && seenHigh > 450, "range used " + seenLow + ".." + seenHigh);
    }

    @Test
    void duringTheQuickPeriodWaitsStayAtMostTheQuickCeilingThenGrowWithTheTimeDown() {
        Backoff b = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(30), QUICK, QUICK_PERIOD, () -> 0.5);
        assertEquals(200, b.ceilingMillis(0, 0));
        assertEquals(400, b.ceilingMillis(1, 150));
        for (int n = 2; n < 200; n++) {
            assertEquals(500, b.ceilingMillis(n, n * 150L), "quick wait " + n);
        }
        assertEquals(500, b.ceilingMillis(200, 29_999));
        assertEquals(500, b.ceilingMillis(201, 30_000));
        assertEquals(500, b.ceilingMillis(202, 30_400));
        assertEquals(4_000, b.ceilingMillis(203, 34_000));
        assertEquals(30_000, b.ceilingMillis(204, 60_000));
        assertEquals(30_000, b.ceilingMillis(205, 3_600_000));
        // A quick ceiling above the max is capped at the max.
        Backoff capped = new Backoff(Duration.ofMillis(20), Duration.ofMillis(300), QUICK, QUICK_PERIOD, () -> 0.5);
        assertEquals(300, capped.ceilingMillis(10, 1_000));
    }

    /** The sidecar's fixed backoff: at most 200 ms, then 250 ms for 30 s after the loss, then up to 30 s. */
    @Test
    void theSidecarsBackoffIsQuickForThirtySecondsThenGrowsToThirtySeconds() {
        Backoff b = Backoff.RECONNECTION;
        // {failures, time down in ms, ceiling in ms}
        long[][] expected = {{0, 0, 200}, {1, 200, 250}, {150, 29_999, 250}, {151, 30_100, 250},
                {160, 40_000, 10_000}, {170, 60_000, 30_000}, {200, 3_600_000, 30_000}};
        for (long[] e : expected) {
            assertEquals(e[2], b.ceilingMillis((int) e[0], e[1]), Arrays.toString(e));
        }
    }

    /**
     * An agent that keeps failing, on the backoff's own sequence over a simulated clock (attempts fail at once, waits
     * at the middle of their jitter range): about 4 attempts a second in the quick period, then ever fewer, down to
     * one per half maxBackoff.
     */
    @Test
    void anAgentThatKeepsFailingIsRetriedQuicklyAtFirstThenEverLessOften() {
        Backoff b = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(30), QUICK, QUICK_PERIOD, () -> 0.5);
        long[] attemptsPerMinute = new long[10];
        long firstSecond = 0;
        long now = 0;
        for (int failures = 0; ; failures++) {
            now += b.delayMillis(failures, now);
            if (now >= 600_000) {
                break;
            }
            attemptsPerMinute[(int) (now / 60_000)]++;
            firstSecond += now < 1_000 ? 1 : 0;
        }
        assertTrue(firstSecond >= 3, "quick attempts in the first second: " + firstSecond);
        assertTrue(attemptsPerMinute[0] <= 150, "first minute " + attemptsPerMinute[0]);
        assertTrue(attemptsPerMinute[1] <= 10, "second minute " + attemptsPerMinute[1]);
        for (int minute = 2; minute < 10; minute++) {
            assertTrue(attemptsPerMinute[minute] <= 5, "minute " + minute + ": " + attemptsPerMinute[minute]);
        }
        assertTrue(attemptsPerMinute[9] * 20 <= attemptsPerMinute[0], Arrays.toString(attemptsPerMinute));
    }

    @Test
    void rejectsNonsense() {
        assertThrows(IllegalArgumentException.class,
                () -> new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ZERO, QUICK_PERIOD));
        assertThrows(IllegalArgumentException.class,
                () -> new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), QUICK, Duration.ofSeconds(-1)));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class,
                () -> new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(2)).ceilingMillis(-1, 0));
    }
}
