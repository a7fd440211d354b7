package org.seaweedfs.rdma.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;

/**
 * The read path's meters. Tag values are bounded: sources and results come from fixed sets (anything
 * else is recorded as "other"), agents are configured addresses; never a file id.
 */
public final class ReadMeters {

    public static final Set<String> SOURCES = Set.of("rdma", "read-through", "http", "none");
    public static final Set<String> RESULTS = Set.of(
            "ok", "not_modified", "bad_request", "unauthorized", "not_found", "range_not_satisfiable",
            "corrupt", "unavailable", "timeout", "rejected", "aborted", "too_large", "error");
    /** Agent connection states, one gauge each (1 for the current state). */
    public static final List<String> AGENT_STATES = List.of("connecting", "up", "down");

    private static final List<String> SOURCE_TAGS = tagValues(SOURCES);
    private static final List<String> RESULT_TAGS = tagValues(RESULTS);
    /** Meters by [source][result] tag index, and by source. */
    static final int SLOTS = SOURCE_TAGS.size() * RESULT_TAGS.size();
    static final int SOURCE_SLOTS = SOURCE_TAGS.size();
    /** The faces a batch comes through (the batch timer's tag). */
    public static final String HTTP = "http";
    public static final String EVENT_BUS = "eventbus";
    private static final List<String> FACES = List.of(HTTP, EVENT_BUS);

    private final MeterRegistry registry;
    /** Latency timers by [source][result] tag index, registered on first use (building one per read costs). */
    private final AtomicReferenceArray<Timer> latency = new AtomicReferenceArray<>(SLOTS);
    private final AtomicReferenceArray<DistributionSummary> served = new AtomicReferenceArray<>(SOURCE_SLOTS);
    private final AtomicReferenceArray<Counter> batchReads = new AtomicReferenceArray<>(SLOTS);
    private final AtomicReferenceArray<Counter> batchBytes = new AtomicReferenceArray<>(SOURCE_SLOTS);
    private final AtomicReferenceArray<Timer> batches = new AtomicReferenceArray<>(FACES.size());
    private final ReadTally tally = new ReadTally();

    public ReadMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Meters that go nowhere, for tests and for {@code metrics.enabled: false}. */
    public static ReadMeters noop() {
        return new ReadMeters(nowhere());
    }

    /**
     * A registry that keeps nothing: a composite with no registries hands out no-op meters, so a read path with
     * metrics off pays nothing per read (a simple registry would still fill every histogram).
     */
    public static MeterRegistry nowhere() {
        return new CompositeMeterRegistry();
    }

    /** One finished read (HTTP or event bus), whatever its outcome. */
    public void recordRead(String source, String result, long nanos) {
        tally.record(source, result, nanos, 1);
        int slot = slot(source, result);
        meter(latency, slot, registry, (r, i) -> latencies("seaweedfs.rdma.read.latency")
                .description("Needle reads, from request to last byte handed over")
                .tag("source", sourceTag(i)).tag("result", resultTag(i))
                .register(r)).record(nanos, TimeUnit.NANOSECONDS);
    }

    /**
     * One batch that ran ({@code face}: {@link #HTTP} or {@link #EVENT_BUS}), {@code nanos} from its request to its
     * last byte handed over: one sample of {@code seaweedfs.rdma.read.batch}, its members added to
     * {@code seaweedfs.rdma.read.batch.needles} and {@code seaweedfs.rdma.read.batch.bytes}, and to the running totals
     * as reads of that latency.
     */
    public void recordBatch(String face, BatchCounts counts, long nanos) {
        meter(batches, FACES.indexOf(face), registry, (r, i) -> latencies("seaweedfs.rdma.read.batch")
                .description("Batches of needles (POST /batch, event-bus readMany), from request to last byte"
                        + " handed over")
                .tag("face", FACES.get(i))
                .register(r)).record(nanos, TimeUnit.NANOSECONDS);
        for (int slot = 0; slot < SLOTS; slot++) {
            long n = counts.reads[slot];
            if (n > 0) {
                tally.record(sourceTag(slot), resultTag(slot), nanos, n);
                meter(batchReads, slot, registry, (r, i) -> Counter.builder("seaweedfs.rdma.read.batch.needles")
                        .description("Needles read in batches, by source and result")
                        .tag("source", sourceTag(i)).tag("result", resultTag(i))
                        .register(r)).increment(n);
            }
        }
        for (int slot = 0; slot < SOURCE_SLOTS; slot++) {
            long n = counts.bytes[slot];
            if (n > 0) {
                meter(batchBytes, slot, registry, (r, i) -> Counter.builder("seaweedfs.rdma.read.batch.bytes")
                        .description("Needle bytes served in batches").baseUnit("bytes")
                        .tag("source", SOURCE_TAGS.get(i))
                        .register(r)).increment(n);
            }
        }
    }

    /** Body bytes handed to a client. */
    public void recordBytesServed(String source, long bytes) {
        meter(served, sourceSlot(source), registry, (r, i) -> DistributionSummary.builder("seaweedfs.rdma.read.bytes")
                .description("Needle bytes served per read")
                .baseUnit("bytes")
                .tag("source", SOURCE_TAGS.get(i))
                .register(r)).record(bytes);
    }

    /**
     * The meter in {@code slot}, registered on first use (idempotent: a racing thread gets the same meter). The
     * registrations capture nothing, so a read allocates no lambda.
     */
    private static <M> M meter(AtomicReferenceArray<M> meters, int slot, MeterRegistry registry,
                               Registration<M> registration) {
        M meter = meters.get(slot);
        if (meter == null) {
            meter = registration.register(registry, slot);
            meters.set(slot, meter);
        }
        return meter;
    }

    public void bindReadsInFlight(Supplier<Number> inFlight) {
        Gauge.builder("seaweedfs.rdma.reads.in.flight", inFlight).description("Needle reads being served")
                .strongReference(true).register(registry);
    }

    /** Entries in the sidecar's mirror of an agent's needle map (or the agent's own map). */
    public void bindNeedleMapSize(String agent, Supplier<Number> entries) {
        Gauge.builder("seaweedfs.rdma.needle.map.size", entries).description("Needle map entries")
                .tag("agent", agent).strongReference(true).register(registry);
    }

    /** Gauges {@code seaweedfs.rdma.agent.state{agent,state}}: 1 for the agent's current state, else 0. */
    public void bindAgentState(String agent, Supplier<String> state) {
        for (String s : AGENT_STATES) {
            Gauge.builder("seaweedfs.rdma.agent.state", () -> s.equals(state.get()) ? 1 : 0)
                    .description("Agent connection state (1 = current)")
                    .tag("agent", agent).tag("state", s).strongReference(true).register(registry);
        }
    }

    /** Running totals of the reads recorded here (kept with metrics off too), for /status and its history. */
    public ReadTally tally() {
        return tally;
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** The result tag for an HTTP-like status code. */
    public static String resultOf(int code) {
        return switch (code) {
            case 200, 206 -> "ok";
            case 304 -> "not_modified";
            case 400 -> "bad_request";
            case 401 -> "unauthorized";
            case 404 -> "not_found";
            case 413 -> "too_large";
            case 416 -> "range_not_satisfiable";
            case 502 -> "corrupt";
            case 503 -> "unavailable";
            case 504 -> "timeout";
            default -> "error";
        };
    }

    /** A timer of read latencies with a histogram from 10 µs to 30 s. */
    private static Timer.Builder latencies(String name) {
        return Timer.builder(name)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1).dividedBy(100))
                .maximumExpectedValue(Duration.ofSeconds(30));
    }

    private static String sourceTag(int slot) {
        return SOURCE_TAGS.get(slot / RESULT_TAGS.size());
    }

    private static String resultTag(int slot) {
        return RESULT_TAGS.get(slot % RESULT_TAGS.size());
    }

    /** Registers the meter of a slot. */
    private interface Registration<M> {
        M register(MeterRegistry registry, int slot);
    }

    /** The [source][result] slot of a read's meters. */
    static int slot(String source, String result) {
        return tagIndex(source, SOURCE_TAGS) * RESULT_TAGS.size() + tagIndex(result, RESULT_TAGS);
    }

    static int sourceSlot(String source) {
        return tagIndex(source, SOURCE_TAGS);
    }

    /** The allowed values in a fixed order, then "other". */
    private static List<String> tagValues(Set<String> allowed) {
        List<String> values = new ArrayList<>(new TreeSet<>(allowed));
        values.add("other");
        return List.copyOf(values);
    }

    /**
     * The value's index in {@code tags}, else the index of "other". Callers pass the constants themselves, so an
     * identity pass finds them without comparing characters (List.indexOf's equals per entry was 1 % of a 4 KiB read).
     */
    private static int tagIndex(String value, List<String> tags) {
        int last = tags.size() - 1;
        for (int i = 0; i < last; i++) {
            if (tags.get(i) == value) {
                return i;
            }
        }
        int i = value == null ? -1 : tags.indexOf(value);
        return i >= 0 ? i : last;
    }
}
