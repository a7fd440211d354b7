package org.seaweedfs.rdma.sidecar.connection;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Exponential backoff with full jitter: after {@code n} consecutive failures wait a uniformly random time in
 * {@code [1 ms, min(max, base * 2^n)]}. Full jitter spreads the reconnections of many sidecars to a restarted
 * agent instead of having them arrive together. Immutable and thread-safe.
 */
public final class Backoff {

    private final long baseMillis;
    private final long maxMillis;
    private final DoubleSupplier random;

    public Backoff(Duration base, Duration max) {
        this(base, max, () -> ThreadLocalRandom.current().nextDouble());
    }

    /** @param random values in [0, 1); tests pass fixed ones */
    Backoff(Duration base, Duration max, DoubleSupplier random) {
        if (base.isNegative() || base.isZero()) {
            throw new IllegalArgumentException("backoff base must be positive, got " + base);
        }
        if (max.compareTo(base) < 0) {
            throw new IllegalArgumentException("backoff max " + max + " is below its base " + base);
        }
        this.baseMillis = base.toMillis() == 0 ? 1 : base.toMillis();
        this.maxMillis = Math.max(max.toMillis(), baseMillis);
        this.random = random;
    }

    /** The upper bound of the wait after {@code failures} consecutive failures (0 = the first retry). */
    public long ceilingMillis(int failures) {
        if (failures < 0) {
            throw new IllegalArgumentException("failures must be >= 0, got " + failures);
        }
        // base * 2^n without overflow: stop doubling once the cap is reached.
        if (failures >= 62 || baseMillis > (maxMillis >> Math.min(failures, 62))) {
            return maxMillis;
        }
        return Math.min(maxMillis, baseMillis << failures);
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
