package org.seaweedfs.rdma.http;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import org.seaweedfs.rdma.metrics.ReadTally;
import org.seaweedfs.rdma.sidecar.ReadPathStatus;

/**
 * The last minutes of the read path for the status page ({@code /status/history}): every {@link #INTERVAL_MS} one
 * sample of the reads finished in that interval per source, the failed ones, their mean and slowest latency, and how
 * many agents could serve; at most {@link #SAMPLES} are kept (10 minutes), the oldest dropped first.
 */
public final class StatusHistory {

    public static final long INTERVAL_MS = 5_000;
    public static final int SAMPLES = 120;

    /** One interval; {@code reads} is per source in {@link ReadTally#SOURCES} order. */
    record Sample(long at, long[] reads, long failed, double meanMs, double maxMs, int agentsServing) {
    }

    private final ReadTally tally;
    private final ReadPathStatus status;
    private final Deque<Sample> samples = new ArrayDeque<>(SAMPLES);
    private long[] lastReads;
    private long lastFailed;
    private long lastNanos;
    private long lastTotal;

    /** @param status whose agents RDMA reads can go to (counted in every sample) */
    public StatusHistory(ReadTally tally, ReadPathStatus status) {
        this.tally = tally;
        this.status = status;
        lastReads = readsNow();
        lastFailed = tally.failed();
        lastNanos = tally.totalNanos();
        lastTotal = tally.reads();
        tally.takeMaxNanos();
    }

    /** Samples every {@link #INTERVAL_MS} on {@code vertx}; returns the timer id to cancel. */
    public long start(Vertx vertx) {
        return vertx.setPeriodic(INTERVAL_MS, id -> sample(System.currentTimeMillis()));
    }

    /** Closes the interval ending at {@code now}. */
    synchronized void sample(long now) {
        long[] reads = readsNow();
        long total = tally.reads();
        long nanos = tally.totalNanos();
        long failed = tally.failed();
        long[] delta = new long[reads.length];
        for (int i = 0; i < reads.length; i++) {
            delta[i] = reads[i] - lastReads[i];
        }
        long count = total - lastTotal;
        double mean = count <= 0 ? 0 : (nanos - lastNanos) / 1e6 / count;
        if (samples.size() == SAMPLES) {
            samples.removeFirst();
        }
        samples.addLast(new Sample(now, delta, failed - lastFailed, mean, tally.takeMaxNanos() / 1e6,
                (int) status.agents().stream().filter(StatusHandlers::serves).count()));
        lastReads = reads;
        lastTotal = total;
        lastNanos = nanos;
        lastFailed = failed;
    }

    /** {@code {"intervalSeconds": 5, "sources": [...], "samples": [{"at", "reads": {...}, ...}]}}, oldest first. */
    synchronized JsonObject toJson() {
        JsonArray out = new JsonArray();
        for (Sample s : samples) {
            JsonObject reads = new JsonObject();
            for (int i = 0; i < ReadTally.SOURCES.size(); i++) {
                reads.put(ReadTally.SOURCES.get(i), s.reads()[i]);
            }
            out.add(new JsonObject()
                    .put("at", s.at())
                    .put("reads", reads)
                    .put("failed", s.failed())
                    .put("meanMs", round(s.meanMs()))
                    .put("maxMs", round(s.maxMs()))
                    .put("agentsServing", s.agentsServing()));
        }
        return new JsonObject()
                .put("intervalSeconds", INTERVAL_MS / 1000)
                .put("maxSamples", SAMPLES)
                .put("sources", new JsonArray(ReadTally.SOURCES))
                .put("samples", out);
    }

    private long[] readsNow() {
        Map<String, Long> bySource = tally.bySource();
        long[] reads = new long[ReadTally.SOURCES.size()];
        for (int i = 0; i < reads.length; i++) {
            reads[i] = bySource.get(ReadTally.SOURCES.get(i));
        }
        return reads;
    }

    private static double round(double ms) {
        return Math.round(ms * 1000) / 1000.0;
    }
}
