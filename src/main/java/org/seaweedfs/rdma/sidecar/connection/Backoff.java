package org.seaweedfs.rdma.sidecar.connection;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Reconnection backoff with full jitter, in two phases. After {@code n} consecutive failures the wait is a
 * uniformly random time in {@code [1 ms, ceiling(n)]}:
 * <ul>
 *   <li>quick phase, the first {@code quickAttempts} waits: {@code min(quick, base * 2^n)}, so an agent that comes
 *       back after a restart or a short hang is found again within about {@code quick};</li>
 *   <li>then doubling from the last quick ceiling up to {@code max}, so an agent that stays down is not hammered.</li>
 * </ul>
 * {@code quickAttempts = 0} is plain exponential backoff, {@code min(max, base * 2^n)}. Full jitter spreads the
 * reconnections of many sidecars to a restarted agent instead of having them arrive together. Immutable and
 * thread-safe.
 */
public final class Backoff {

    private final long baseMillis;
    private final long maxMillis;
    private final long quickMillis;
    private final int quickAttempts;
    private final DoubleSupplier random;

    /** Plain exponential backoff (no quick phase). */
    public Backoff(Duration base, Duration max) {
        this(base, max, max, 0);
    }

    /**
     * @param quick         ceiling of the waits in the quick phase; at most {@code max}
     * @param quickAttempts waits in the quick phase (0: none)
     */
    public Backoff(Duration base, Duration max, Duration quick, int quickAttempts) {
        this(base, max, quick, quickAttempts, () -> ThreadLocalRandom.current().nextDouble());
    }

    /** @param random values in [0, 1); tests pass fixed ones */
    Backoff(Duration base, Duration max, DoubleSupplier random) {
        this(base, max, max, 0, random);
    }

    Backoff(Duration base, Duration max, Duration quick, int quickAttempts, DoubleSupplier random) {
        if (base.isNegative() || base.isZero()) {
            throw new IllegalArgumentException("backoff base must be positive, got " + base);
        }
        if (max.compareTo(base) < 0) {
            throw new IllegalArgumentException("backoff max " + max + " is below its base " + base);
        }
        if (quick.isNegative() || quick.isZero() || quick.compareTo(max) > 0) {
            throw new IllegalArgumentException("quick backoff " + quick + " must be positive and at most the max " + max);
        }
        if (quickAttempts < 0) {
            throw new IllegalArgumentException("quick attempts must be >= 0, got " + quickAttempts);
        }
        this.baseMillis = Math.max(1, base.toMillis());
        this.maxMillis = Math.max(max.toMillis(), baseMillis);
        this.quickMillis = Math.max(1, quick.toMillis());
        this.quickAttempts = quickAttempts;
        this.random = random;
    }

    /** The upper bound of the wait after {@code failures} consecutive failures (0 = the first retry). */
    public long ceilingMillis(int failures) {
        if (failures < 0) {
            throw new IllegalArgumentException("failures must be >= 0, got " + failures);
        }
        if (failures < quickAttempts) {
            return doubled(baseMillis, failures, quickMillis);
        }
        long start = quickAttempts == 0 ? baseMillis : 2 * doubled(baseMillis, quickAttempts - 1, quickMillis);
        return doubled(Math.min(start, maxMillis), failures - quickAttempts, maxMillis);
    }

    /** {@code min(cap, value * 2^times)} without overflow: stops doubling once the cap is reached. */
    private static long doubled(long value, int times, long cap) {
        if (times >= 62 || value > (cap >> Math.min(times, 62))) {
            return cap;
        }
        return Math.min(cap, value << times);
    }

    /** A jittered wait in {@code [1, ceilingMillis(failures)]} (Vert.x timers need at least 1 ms). */
    public long delayMillis(int failures) {
        long ceiling = ceilingMillis(failures);
        double r = random.getAsDouble();
        if (!(r >= 0 && r < 1)) {
            throw new IllegalStateException("random value outside [0, 1): " + r);
        }
        return Math.max(1, Math.min(ceiling, (long) (r * (ceiling + 1))));
    }
}
