package org.seaweedfs.rdma.sidecar.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BreakerMetersTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final CircuitBreaker breaker = CircuitBreaker.ofDefaults("10.0.0.1:18515");
    private final BreakerMeters meters = new BreakerMeters(breaker, registry);

    private FunctionTimer calls(String kind) {
        return registry.get("resilience4j.circuitbreaker.calls").tag("name", breaker.getName()).tag("kind",
                kind).functionTimer();
    }

    private double state(String state) {
        return registry.get("resilience4j.circuitbreaker.state").tag("name", breaker.getName()).tag("state",
                state).gauge().value();
    }

    @Test
    void callsCountAndTotalTimeByKind() {
        meters.succeeded(2_000_000);
        meters.succeeded(3_000_000);
        meters.failed(7_000_000);
        assertEquals(2, calls("successful").count());
        assertEquals(5.0, calls("successful").totalTime(TimeUnit.MILLISECONDS), 1e-9);
        assertEquals(1, calls("failed").count());
        assertEquals(7.0, calls("failed").totalTime(TimeUnit.MILLISECONDS), 1e-9);
        assertEquals(0, calls("ignored").count());
    }

    @Test
    void notPermittedCallsAreCounted() {
        meters.notPermitted();
        meters.notPermitted();
        assertEquals(2.0, registry.get("resilience4j.circuitbreaker.not.permitted.calls").tag("kind", "not_permitted")
                .counter().count());
    }

    @Test
    void gaugesReadTheBreakerWhenScraped() {
        assertEquals(1.0, state("closed"));
        assertEquals(0.0, state("open"));
        breaker.transitionToOpenState();
        assertEquals(0.0, state("closed"));
        assertEquals(1.0, state("open"));
        breaker.transitionToClosedState();
        breaker.onSuccess(1, TimeUnit.MILLISECONDS);
        breaker.onError(1, TimeUnit.MILLISECONDS, new RuntimeException("lost"));
        assertEquals(1.0,
                registry.get("resilience4j.circuitbreaker.buffered.calls").tag("kind", "successful").gauge().value());
        assertEquals(1.0,
                registry.get("resilience4j.circuitbreaker.buffered.calls").tag("kind", "failed").gauge().value());
        assertNotNull(registry.find("resilience4j.circuitbreaker.failure.rate").gauge());
        assertNotNull(registry.find("resilience4j.circuitbreaker.slow.call.rate").gauge());
        assertEquals(2, registry.find("resilience4j.circuitbreaker.slow.calls").gauges().size());
    }
}
