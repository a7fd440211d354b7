package org.seaweedfs.rdma.sidecar.resilience;

import static org.junit.jupiter.api.Assertions.*;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.LogCapture;

class BreakerTransitionsTest {

    @Test
    void logsEachChangeOnceAndNothingWhileTheStateHolds() {
        CircuitBreaker breaker = CircuitBreaker.ofDefaults("127.0.0.1:18515");
        BreakerTransitions transitions = new BreakerTransitions(breaker);
        try (LogCapture log = LogCapture.of(BreakerTransitions.class.getName(), "INFO")) {
            transitions.observe(); // first sight of a closed breaker: nothing to say
            transitions.observe();
            breaker.transitionToOpenState();
            transitions.observe();
            transitions.observe();
            breaker.transitionToHalfOpenState();
            transitions.observe();
            breaker.transitionToClosedState();
            transitions.observe();
            assertEquals(List.of(
                    "Circuit breaker of agent 127.0.0.1:18515: CLOSED -> OPEN",
                    "Circuit breaker of agent 127.0.0.1:18515: OPEN -> HALF_OPEN",
                    "Circuit breaker of agent 127.0.0.1:18515: HALF_OPEN -> CLOSED"), log.messages());
        }
    }

    @Test
    void aBreakerFirstSeenOpenIsReported() {
        CircuitBreaker breaker = CircuitBreaker.ofDefaults("agent-b");
        breaker.transitionToOpenState();
        try (LogCapture log = LogCapture.of(BreakerTransitions.class.getName(), "INFO")) {
            new BreakerTransitions(breaker).observe();
            assertEquals(List.of("Circuit breaker of agent agent-b: OPEN"), log.messages());
        }
    }
}
