package org.seaweedfs.rdma.sidecar.resilience;

import org.seaweedfs.rdma.sidecar.HedgeDelay;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Context;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * What the hedged reads of one read path share: the clock, the hedge budget, the meters, and on each event loop the
 * queues where reads wait for their hedge (one per agent, whose reads wait alike) and their deadline (one per loop:
 * every read has the same). Thread-safe; a loop's queues are confined to its thread.
 */
final class Hedging {

    private final ReadClock clock;
    private final HedgeBudget budget = new HedgeBudget();
    private final MeterRegistry registry;
    private final ConcurrentMap<String, Counter> started = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Counter> won = new ConcurrentHashMap<>();
    private final Counter pastDeadline;
    private final ThreadLocal<LoopQueues> loops = new ThreadLocal<>();

    /** One event loop's queues. */
    private static final class LoopQueues {
        final DueQueue<HedgedRead<?>> deadlines;
        final Map<String, DueQueue<HedgedRead<?>>> hedges = new HashMap<>();

        LoopQueues(DueQueue<HedgedRead<?>> deadlines) {
            this.deadlines = deadlines;
        }
    }

    Hedging(ReadClock clock, MeterRegistry registry) {
        this.clock = clock;
        this.registry = registry;
        this.pastDeadline = Counter.builder("seaweedfs.rdma.reads.past.deadline")
                .description("Reads answered TIMEOUT at sidecar.readTimeout, no path having answered by then")
                .register(registry);
    }

    ReadClock clock() {
        return clock;
    }

    HedgeBudget budget() {
        return budget;
    }

    /** Publishes an agent's hedge delay as the gauge {@code seaweedfs.rdma.hedge.delay{agent}} (seconds). */
    void gauge(String agent, HedgeDelay delay) {
        Gauge.builder("seaweedfs.rdma.hedge.delay", delay, d -> d.nanos() / 1e9)
                .description("How long a read waits on the agent before it is hedged (its recent p99, bounded)")
                .tag("agent", agent).baseUnit("seconds").strongReference(true).register(registry);
    }

    void started(String source) {
        counter(started, "seaweedfs.rdma.hedges.started", "Reads hedged: a second source started", source)
                .increment();
    }

    void won(String source) {
        counter(won, "seaweedfs.rdma.hedges.won", "Hedged reads the second source answered first", source)
                .increment();
    }

    void pastDeadline() {
        pastDeadline.increment();
    }

    private Counter counter(ConcurrentMap<String, Counter> known, String name, String description, String source) {
        return known.computeIfAbsent(source, s -> Counter.builder(name).description(description).tag("source", s)
                .register(registry));
    }

    /** Where {@code read}, on {@code context}, waits for its deadline. */
    DueQueue<HedgedRead<?>> deadlines(Context context) {
        return context.isEventLoopContext() ? loop(context).deadlines : deadlineQueue(context);
    }

    /** Where {@code read}, on {@code context}, waits for its hedge on {@code agent}. */
    DueQueue<HedgedRead<?>> hedges(Context context, String agent) {
        if (!context.isEventLoopContext()) {
            return hedgeQueue(context);
        }
        return loop(context).hedges.computeIfAbsent(agent, a -> hedgeQueue(context));
    }

    private LoopQueues loop(Context context) {
        LoopQueues queues = loops.get();
        if (queues == null) {
            queues = new LoopQueues(deadlineQueue(context));
            loops.set(queues);
        }
        return queues;
    }

    private DueQueue<HedgedRead<?>> deadlineQueue(Context context) {
        return new DueQueue<>(clock, context, HedgedRead::deadlineNanos, HedgedRead::isSettled,
                HedgedRead::deadlinePassed);
    }

    private DueQueue<HedgedRead<?>> hedgeQueue(Context context) {
        return new DueQueue<>(clock, context, HedgedRead::hedgeAtNanos, HedgedRead::hedgeDecided,
                HedgedRead::hedgeDue);
    }
}
