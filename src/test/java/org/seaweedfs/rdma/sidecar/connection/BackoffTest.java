package org.seaweedfs.rdma.sidecar.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void ceilingDoublesFromTheBaseUpToTheMax() {
        Backoff b = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(30), () -> 0.5);
        assertEquals(200, b.ceilingMillis(0));
        assertEquals(400, b.ceilingMillis(1));
        assertEquals(25_600, b.ceilingMillis(7));
        assertEquals(30_000, b.ceilingMillis(8));
        assertEquals(30_000, b.ceilingMillis(61));
        assertEquals(30_000, b.ceilingMillis(1_000));
    }

    @Test
    void fullJitterStaysWithinOneMillisecondAndTheCeiling() {
        assertEquals(1, new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), () -> 0.0).delayMillis(3));
        assertEquals(800, new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), () -> 0.9999999).delayMillis(3));
        assertEquals(1000, new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), () -> 0.9999999).delayMillis(20));
        Random random = new Random(42);
        Backoff b = new Backoff(Duration.ofMillis(10), Duration.ofMillis(500), random::nextDouble);
        long seenLow = Long.MAX_VALUE;
        long seenHigh = 0;
        for (int failures = 0; failures < 12; failures++) {
            for (int i = 0; i < 2_000; i++) {
                long d = b.delayMillis(failures);
                assertTrue(d >= 1 && d <= b.ceilingMillis(failures), "delay " + d + " after " + failures + " failures");
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
    void quickPhaseCapsTheFirstWaitsThenTheyDoubleUpToTheMax() {
        Backoff b = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(30), Duration.ofMillis(500), 20, () -> 0.5);
        assertEquals(200, b.ceilingMillis(0));
        assertEquals(400, b.ceilingMillis(1));
        for (int n = 2; n < 20; n++) {
            assertEquals(500, b.ceilingMillis(n), "quick wait " + n);
        }
        assertEquals(1_000, b.ceilingMillis(20));
        assertEquals(2_000, b.ceilingMillis(21));
        assertEquals(16_000, b.ceilingMillis(24));
        assertEquals(30_000, b.ceilingMillis(25));
        assertEquals(30_000, b.ceilingMillis(Integer.MAX_VALUE));
        // No quick phase: plain doubling from the base.
        Backoff plain = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(30), Duration.ofMillis(500), 0, () -> 0.5);
        assertEquals(200, plain.ceilingMillis(0));
        assertEquals(25_600, plain.ceilingMillis(7));
    }

    /**
     * An agent that keeps failing, on the backoff's own sequence (attempts fail at once, waits at the middle of their
     * jitter range): many attempts in the first seconds, then ever fewer, down to one per maxBackoff / 2 or so.
     */
    @Test
    void anAgentThatKeepsFailingIsRetriedQuicklyAtFirstThenEverLessOften() {
        Backoff b = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(30), Duration.ofMillis(500), 20, () -> 0.5);
        long[] attemptsPerMinute = new long[10];
        long firstSecond = 0;
        long now = 0;
        for (int failures = 0; ; failures++) {
            now += b.delayMillis(failures);
            if (now >= 600_000) {
                break;
            }
            attemptsPerMinute[(int) (now / 60_000)]++;
            firstSecond += now < 1_000 ? 1 : 0;
        }
        assertTrue(firstSecond >= 3, "quick attempts in the first second: " + firstSecond);
        assertTrue(attemptsPerMinute[0] <= 40, "first minute " + attemptsPerMinute[0]);
        for (int minute = 1; minute < 10; minute++) {
            assertTrue(attemptsPerMinute[minute] <= 5, "minute " + minute + ": " + attemptsPerMinute[minute]);
        }
        assertTrue(attemptsPerMinute[9] * 5 <= attemptsPerMinute[0], Arrays.toString(attemptsPerMinute));
    }

    @Test
    void rejectsNonsense() {
        assertThrows(IllegalArgumentException.class,
                () -> new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(2), 5));
        assertThrows(IllegalArgumentException.class,
                () -> new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofMillis(500), -1));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(2)).ceilingMillis(-1));
    }
}
