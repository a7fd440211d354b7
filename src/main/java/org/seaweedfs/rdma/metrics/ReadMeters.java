package org.seaweedfs.rdma.metrics;

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

    private final MeterRegistry registry;
    /** Latency timers by [source][result] tag index, registered on first use (building one per read costs). */
    private final AtomicReferenceArray<Timer> latency =
            new AtomicReferenceArray<>(SOURCE_TAGS.size() * RESULT_TAGS.size());
    private final AtomicReferenceArray<DistributionSummary> served = new AtomicReferenceArray<>(SOURCE_TAGS.size());
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
        tally.record(source, result, nanos);
        int slot = tagIndex(source, SOURCE_TAGS) * RESULT_TAGS.size() + tagIndex(result, RESULT_TAGS);
        Timer timer = latency.get(slot);
        if (timer == null) {
            timer = Timer.builder("seaweedfs.rdma.read.latency")
                    .description("Needle reads, from request to last byte handed over")
                    .tag("source", SOURCE_TAGS.get(slot / RESULT_TAGS.size()))
                    .tag("result", RESULT_TAGS.get(slot % RESULT_TAGS.size()))
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofMillis(1).dividedBy(100))
                    .maximumExpectedValue(Duration.ofSeconds(30))
                    .register(registry); // idempotent: a racing thread gets the same timer
            latency.set(slot, timer);
        }
        timer.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** Body bytes handed to a client. */
    public void recordBytesServed(String source, long bytes) {
        int slot = tagIndex(source, SOURCE_TAGS);
        DistributionSummary summary = served.get(slot);
        if (summary == null) {
            summary = DistributionSummary.builder("seaweedfs.rdma.read.bytes")
                    .description("Needle bytes served per read")
                    .baseUnit("bytes")
                    .tag("source", SOURCE_TAGS.get(slot))
                    .register(registry);
            served.set(slot, summary);
        }
        summary.record(bytes);
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
