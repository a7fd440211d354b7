package org.seaweedfs.rdma.metrics;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * Plain running totals of the reads {@link ReadMeters} records, kept whether or not metrics are enabled, for
 * {@code /status} and the status page's history: reads per source, failed reads, the sum of latencies, and the
 * slowest read since the last {@link #takeMaxNanos()}. Safe from any thread; a handful of adders, nothing grows.
 */
public final class ReadTally {

    /** Sources in the order they are reported. */
    public static final List<String> SOURCES = List.of("rdma", "read-through", "http", "none");

    private final LongAdder[] bySource = new LongAdder[SOURCES.size() + 1];
    private final LongAdder failed = new LongAdder();
    private final LongAdder nanos = new LongAdder();
    private final LongAccumulator maxNanos = new LongAccumulator(Math::max, 0);

    ReadTally() {
        for (int i = 0; i < bySource.length; i++) {
            bySource[i] = new LongAdder();
        }
    }

    /** {@code count} reads that ended alike, each taking {@code nanos}. */
    void record(String source, String result, long nanos, long count) {
        int i = source == null ? -1 : SOURCES.indexOf(source); // List.of rejects null lookups
        bySource[i >= 0 ? i : SOURCES.size()].add(count);
        if (!"ok".equals(result) && !"not_modified".equals(result)) {
            failed.add(count);
        }
        this.nanos.add(Math.max(0, nanos) * count);
        maxNanos.accumulate(nanos);
    }

    /** Reads finished, every source together. */
    public long reads() {
        long sum = 0;
        for (LongAdder a : bySource) {
            sum += a.sum();
        }
        return sum;
    }

    /** Reads finished per source ({@link #SOURCES}, then "other" when any). */
    public Map<String, Long> bySource() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (int i = 0; i < SOURCES.size(); i++) {
            out.put(SOURCES.get(i), bySource[i].sum());
        }
        long other = bySource[SOURCES.size()].sum();
        if (other > 0) {
            out.put("other", other);
        }
        return out;
    }

    /** Reads that did not end with their content (or a 304). */
    public long failed() {
        return failed.sum();
    }

    /** Sum of every read's latency. */
    public long totalNanos() {
        return nanos.sum();
    }

    /** The slowest read since the previous call, 0 when none; resets. */
    public long takeMaxNanos() {
        return maxNanos.getThenReset();
    }
}
