package org.seaweedfs.rdma.sidecar.connection;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Reconnection backoff with full jitter, in two phases. The wait is a uniformly random time in
 * {@code [1 ms, ceiling]}, where, after {@code n} consecutive failures over {@code t} since the agent was lost:
 * <ul>
 *   <li>quick phase, {@code t < quickPeriod}: {@code ceiling = min(quick, base * 2^n)}, so an agent back from a
 *       restart or a hang within that period is found again within about {@code quick};</li>
 *   <li>then {@code ceiling = min(max, max(quick, t - quickPeriod))}: the waits grow with the time the agent has
 *       been down beyond the quick period (each attempt about 1.5 times as late as the one before, exponential in
 *       the attempts), so an agent that stays down is not hammered, and up to {@code max}.</li>
 * </ul>
 * A zero {@code quickPeriod} is plain exponential backoff, {@code min(max, base * 2^n)}. Full jitter spreads the
 * reconnections of many sidecars to a restarted agent instead of having them arrive together. Immutable and
 * thread-safe.
 */
public final class Backoff {

    /**
     * The backoff a sidecar reconnects to a lost agent with: a first retry within 200 ms and 30 s of waits of at most
     * 250 ms after an agent is lost, so an agent back from a restart or a hang is read over RDMA again at once; then
     * waits growing to 30 s, so an agent that stays down costs a connection attempt every 15 s or so on average, and
     * comes back into use within 30 s of its return.
     */
    public static final Backoff RECONNECTION = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(30),
            Duration.ofMillis(250), Duration.ofSeconds(30));

    private final long baseMillis;
    private final long maxMillis;
    private final long quickMillis;
    private final long quickPeriodMillis;
    private final DoubleSupplier random;

    /** Plain exponential backoff (no quick phase). */
    public Backoff(Duration base, Duration max) {
        this(base, max, max, Duration.ZERO);
    }

    /**
     * @param quick       ceiling of the waits in the quick phase; capped at {@code max}
     * @param quickPeriod how long after an agent is lost the quick phase lasts (0: none)
     */
    public Backoff(Duration base, Duration max, Duration quick, Duration quickPeriod) {
        this(base, max, quick, quickPeriod, () -> ThreadLocalRandom.current().nextDouble());
    }

    /** @param random values in [0, 1); tests pass fixed ones */
    Backoff(Duration base, Duration max, DoubleSupplier random) {
        this(base, max, max, Duration.ZERO, random);
    }

    Backoff(Duration base, Duration max, Duration quick, Duration quickPeriod, DoubleSupplier random) {
        if (base.isNegative() || base.isZero()) {
            throw new IllegalArgumentException("backoff base must be positive, got " + base);
        }
        if (max.compareTo(base) < 0) {
            throw new IllegalArgumentException("backoff max " + max + " is below its base " + base);
        }
        if (quick.isNegative() || quick.isZero()) {
            throw new IllegalArgumentException("quick backoff must be positive, got " + quick);
        }
        if (quickPeriod.isNegative()) {
            throw new IllegalArgumentException("quick period must be >= 0, got " + quickPeriod);
        }
        this.baseMillis = Math.max(1, base.toMillis());
        this.maxMillis = Math.max(max.toMillis(), baseMillis);
        this.quickMillis = Math.min(maxMillis, Math.max(1, quick.toMillis()));
        this.quickPeriodMillis = quickPeriod.toMillis();
        this.random = random;
    }

    /**
     * The upper bound of the wait after {@code failures} consecutive failures (0 = the first retry) over
     * {@code downMillis} since the agent was lost.
     */
    public long ceilingMillis(int failures, long downMillis) {
        if (failures < 0 || downMillis < 0) {
            throw new IllegalArgumentException("failures and time down must be >= 0, got " + failures + ", "
                    + downMillis);
        }
        if (quickPeriodMillis == 0) {
            return doubled(baseMillis, failures, maxMillis);
        }
        if (downMillis < quickPeriodMillis) {
            return doubled(baseMillis, failures, quickMillis);
        }
        return Math.min(maxMillis, Math.max(quickMillis, downMillis - quickPeriodMillis));
    }

    /** {@code min(cap, value * 2^times)} without overflow: stops doubling once the cap is reached. */
    private static long doubled(long value, int times, long cap) {
        if (times >= 62 || value > (cap >> Math.min(times, 62))) {
            return cap;
        }
        return Math.min(cap, value << times);
    }

    /** A jittered wait in {@code [1, ceilingMillis(failures, downMillis)]} (Vert.x timers need at least 1 ms). */
    public long delayMillis(int failures, long downMillis) {
        long ceiling = ceilingMillis(failures, downMillis);
        double r = random.getAsDouble();
        if (!(r >= 0 && r < 1)) {
            throw new IllegalStateException("random value outside [0, 1): " + r);
        }
        return Math.max(1, Math.min(ceiling, (long) (r * (ceiling + 1))));
    }
}
