package org.seaweedfs.rdma.sidecar.resilience;

import org.seaweedfs.rdma.sidecar.ReadFailure;

import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.retry.RetryConfig;
import java.util.List;
import org.seaweedfs.rdma.config.Fallback;
import org.seaweedfs.rdma.config.SidecarConfig;

/**
 * The read path's resilience policy, from {@code sidecar.breaker.openDuration} and {@code sidecar.fallback}. Each
 * path bounds its own time ({@code sidecar.readTimeout}: the RDMA path's read gate, the fallbacks per request).
 */
public record ResilienceSettings(SidecarConfig.Breaker breaker, SidecarConfig.Retry retry, List<Fallback> fallback) {

    public ResilienceSettings {
        fallback = List.copyOf(fallback);
        if (fallback.stream().distinct().count() != fallback.size()) {
            throw new IllegalArgumentException("sidecar.fallback lists a path twice: " + fallback);
        }
        if (breaker.minimumCalls() > breaker.slidingWindowSize()) {
            throw new IllegalArgumentException("the breaker's minimum calls (" + breaker.minimumCalls()
                    + ") exceed its sliding window (" + breaker.slidingWindowSize() + ")");
        }
    }

    public static ResilienceSettings from(SidecarConfig config) {
        return new ResilienceSettings(config.breaker(), config.retry(), config.fallback());
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
                .slidingWindowSize(breaker.slidingWindowSize())
                .minimumNumberOfCalls(breaker.minimumCalls())
                .failureRateThreshold(breaker.failureRateThreshold())
                .waitDurationInOpenState(breaker.openDuration())
                .permittedNumberOfCallsInHalfOpenState(breaker.halfOpenCalls())
                .automaticTransitionFromOpenToHalfOpenEnabled(false)
                .build();
    }

    /** Retries of retriable {@link ReadFailure}s only (unavailable, timeout); waits are timers, not sleeps. */
    public RetryConfig retryConfig() {
        return RetryConfig.custom()
                .maxAttempts(retry.maxAttempts())
                .waitDuration(retry.waitDuration())
                .retryOnException(t -> t instanceof ReadFailure rf && rf.retriable())
                .failAfterMaxAttempts(false)
                .build();
    }
}
