package org.seaweedfs.rdma.sidecar.resilience;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Logs each agent breaker's state changes, found by comparing its state after every call that may change it.
 * Resilience4j would tell us through its event publisher, but any consumer there makes every call build an
 * event (with a time-zone lookup) on every read, which the hot path cannot afford.
 * Thread-safe; each change is logged once.
 */
final class BreakerTransitions {

    private static final Logger LOG = LoggerFactory.getLogger(BreakerTransitions.class);

    private final ConcurrentMap<String, CircuitBreaker.State> lastSeen = new ConcurrentHashMap<>();

    /** Call after {@code tryAcquirePermission}, {@code onSuccess}/{@code onError} or a forced transition. */
    void observe(CircuitBreaker breaker) {
        CircuitBreaker.State now = breaker.getState();
        if (lastSeen.get(breaker.getName()) == now) {
            return; // the common case: a read that changed nothing takes no lock here
        }
        CircuitBreaker.State before = lastSeen.put(breaker.getName(), now);
        if (before != null && before != now) {
            LOG.info("Circuit breaker of agent " + breaker.getName() + ": " + before + " -> " + now);
        } else if (before == null && now != CircuitBreaker.State.CLOSED) {
            LOG.info("Circuit breaker of agent " + breaker.getName() + ": " + now);
        }
    }
}
