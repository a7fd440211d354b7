package org.seaweedfs.rdma.sidecar.resilience;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs one agent breaker's state changes, found by comparing its state after every call that may change it.
 * Resilience4j would tell us through its event publisher, but any consumer there makes every call build an
 * event (with a time-zone lookup) on every read, which the hot path cannot afford. Held by the agent's guard, so a
 * read that changed nothing costs one volatile read (no map lookup by agent name). Thread-safe; each change is
 * logged once.
 */
final class BreakerTransitions {

    private static final Logger LOG = LoggerFactory.getLogger(BreakerTransitions.class);

    private final CircuitBreaker breaker;
    private volatile CircuitBreaker.State lastSeen;
    /** The last failure the breaker counted: an opening is logged with it, so operators see why. */
    private volatile String lastFailure;

    BreakerTransitions(CircuitBreaker breaker) {
        this.breaker = breaker;
    }

    /** The breaker counted a failure against the agent, or is about to be opened, for {@code why}. */
    void failed(String why) {
        lastFailure = why;
    }

    /** Call after {@code tryAcquirePermission}, {@code onSuccess}/{@code onError} or a forced transition. */
    void observe() {
        CircuitBreaker.State now = breaker.getState();
        if (lastSeen == now) {
            return; // the common case
        }
        CircuitBreaker.State before;
        synchronized (this) {
            before = lastSeen;
            if (before == now) {
                return;
            }
            lastSeen = now;
        }
        if (before == null && now == CircuitBreaker.State.CLOSED) {
            return; // a new breaker, closed: nothing to tell
        }
        String why = now == CircuitBreaker.State.OPEN && lastFailure != null ? " (last failure: " + lastFailure + ")"
                : "";
        LOG.info("Circuit breaker of agent " + breaker.getName() + ": " + (before == null ? "" : before + " -> ") + now
                + why);
    }
}
