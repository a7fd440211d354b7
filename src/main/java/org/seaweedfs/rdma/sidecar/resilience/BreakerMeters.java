package org.seaweedfs.rdma.sidecar.resilience;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;

/**
 * One agent breaker's meters, under the names and tags of Resilience4j's {@code TaggedCircuitBreakerMetrics}
 * ({@code resilience4j.circuitbreaker.calls{kind}}, {@code .not.permitted.calls}, {@code .state{state}},
 * {@code .failure.rate}, {@code .slow.call.rate}, {@code .buffered.calls{kind}}, {@code .slow.calls{kind}}).
 * That binder times calls through the breaker's event publisher, which builds an event object and reads the time
 * zone on every call; the read path already measures each call, so it adds it to two counters here, which the
 * registry reads as a count and a total time when scraped (a function timer: no max, no histogram, no lock or
 * time-window rotation on the read path). The gauges read the breaker's own sliding-window metrics. Thread-safe.
 */
final class BreakerMeters {

    private static final String PREFIX = "resilience4j.circuitbreaker.";

    /** Calls of one kind: how many, and their total time. */
    private static final class Calls {
        final LongAdder count = new LongAdder();
        final LongAdder nanos = new LongAdder();

        void add(long callNanos) {
            count.increment();
            nanos.add(callNanos);
        }
    }

    private final Calls successful;
    private final Calls failed;
    private final Calls ignored; // no error is ignored here; kept so the series match Resilience4j's
    private final Counter notPermitted;

    BreakerMeters(CircuitBreaker breaker, MeterRegistry registry) {
        Tags name = Tags.of("name", breaker.getName());
        successful = calls(registry, name, "successful");
        failed = calls(registry, name, "failed");
        ignored = calls(registry, name, "ignored"); // held here: the registry keeps only a weak reference
        notPermitted =
                Counter.builder(PREFIX + "not.permitted.calls").description("Total number of not permitted calls")
                .tags(name).tag("kind", "not_permitted").register(registry);
        for (CircuitBreaker.State state : CircuitBreaker.State.values()) {
            gauge(registry, breaker, "state", name.and("state", state.name().toLowerCase(Locale.ROOT)),
                    "The states of the circuit breaker", b -> b.getState() == state ? 1 : 0);
        }
        gauge(registry, breaker, "failure.rate", name, "The failure rate of the circuit breaker",
                b -> b.getMetrics().getFailureRate());
        gauge(registry, breaker, "slow.call.rate", name, "The slow call of the circuit breaker",
                b -> b.getMetrics().getSlowCallRate());
        gauge(registry, breaker, "buffered.calls", name.and("kind", "successful"),
                "The number of buffered successful calls",
                b -> b.getMetrics().getNumberOfSuccessfulCalls());
        gauge(registry, breaker, "buffered.calls", name.and("kind", "failed"), "The number of buffered failed calls",
                b -> b.getMetrics().getNumberOfFailedCalls());
        gauge(registry, breaker, "slow.calls", name.and("kind", "successful"), "The number of slow successful calls",
                b -> b.getMetrics().getNumberOfSlowSuccessfulCalls());
        gauge(registry, breaker, "slow.calls", name.and("kind", "failed"), "The number of slow failed calls",
                b -> b.getMetrics().getNumberOfSlowFailedCalls());
    }

    /** A call the breaker counted as a success (the path worked, whatever the answer). */
    void succeeded(long nanos) {
        successful.add(nanos);
    }

    /** A call the breaker counted as a failure. */
    void failed(long nanos) {
        failed.add(nanos);
    }

    void notPermitted() {
        notPermitted.increment();
    }

    private static Calls calls(MeterRegistry registry, Tags name, String kind) {
        Calls calls = new Calls();
        FunctionTimer.builder(PREFIX + "calls", calls, c -> c.count.sum(), c -> c.nanos.sum(), TimeUnit.NANOSECONDS)
                .description("Total number of " + kind + " calls").tags(name).tag("kind", kind).register(registry);
        return calls;
    }

    private static void gauge(MeterRegistry registry, CircuitBreaker breaker, String metric, Tags tags,
                              String description, ToDoubleFunction<CircuitBreaker> value) {
        Gauge.builder(PREFIX + metric, breaker, value).description(description).tags(tags).register(registry);
    }
}
