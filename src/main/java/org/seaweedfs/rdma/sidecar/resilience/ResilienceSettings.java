package org.seaweedfs.rdma.sidecar.resilience;

import org.seaweedfs.rdma.sidecar.ReadFailure;

import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.seaweedfs.rdma.config.Fallback;
import org.seaweedfs.rdma.config.SidecarConfig;

/**
 * The read path's resilience policy, from {@code sidecar.breaker.openDuration} and {@code sidecar.fallback}; the rest
 * is fixed here. Each path bounds its own time ({@code sidecar.readTimeout}: the RDMA path's read gate, the fallbacks
 * per request).
 */
public record ResilienceSettings(SidecarConfig.Breaker breaker, List<Fallback> fallback) {

    /** The breaker opens when this share (in %) of the calls in its window failed. */
    static final int FAILURE_RATE_PERCENT = 50;
    /** The breaker's window: the last 20 calls. */
    static final int BREAKER_WINDOW_CALLS = 20;
    /** Calls the window must hold before the rate counts, so a single failure after start-up does not open it. */
    static final int BREAKER_MINIMUM_CALLS = 10;
    /** Trial calls let through when half open: enough to tell a recovered agent from one that still fails. */
    static final int HALF_OPEN_CALLS = 3;
    /**
     * Attempts of a read on the RDMA path: one that failed because an agent restarted or a breaker was half open
     * usually succeeds on another agent or the next try, and three keep a dead path's cost within the read timeout.
     */
    static final int RETRY_ATTEMPTS = 3;
    /** The wait between attempts. */
    static final Duration RETRY_WAIT = Duration.ofMillis(50);

    public ResilienceSettings {
        Objects.requireNonNull(breaker, "breaker");
        fallback = List.copyOf(fallback);
        if (fallback.stream().distinct().count() != fallback.size()) {
            throw new IllegalArgumentException("sidecar.fallback lists a path twice: " + fallback);
        }
    }

    public static ResilienceSettings from(SidecarConfig config) {
        return new ResilienceSettings(config.breaker(), config.fallback());
    }

    /**
     * A count-based breaker. It records only what the breaker is told: {@link ResilientNeedleSource} reports
     * transport failures as errors, and answers such as not-found as successes (the path worked).
     * No automatic open-to-half-open transition: that would need Resilience4j's scheduler thread; the first
     * call after {@code openDuration} makes the transition instead.
     */
    public CircuitBreakerConfig circuitBreakerConfig() {
        return CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(BREAKER_WINDOW_CALLS)
                .minimumNumberOfCalls(BREAKER_MINIMUM_CALLS)
                .failureRateThreshold(FAILURE_RATE_PERCENT)
                .waitDurationInOpenState(breaker.openDuration())
                .permittedNumberOfCallsInHalfOpenState(HALF_OPEN_CALLS)
                .automaticTransitionFromOpenToHalfOpenEnabled(false)
                .build();
    }

    /** Retries of retriable {@link ReadFailure}s only (unavailable, timeout); waits are timers, not sleeps. */
    public RetryConfig retryConfig() {
        return RetryConfig.custom()
                .maxAttempts(RETRY_ATTEMPTS)
                .waitDuration(RETRY_WAIT)
                .retryOnException(t -> t instanceof ReadFailure rf && rf.retriable())
                .failAfterMaxAttempts(false)
                .build();
    }
}
