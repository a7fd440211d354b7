package org.seaweedfs.rdma.sidecar.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
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
    void rejectsNonsense() {
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(2)).ceilingMillis(-1));
    }
}
