package org.seaweedfs.rdma.http;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Objects;
import org.seaweedfs.rdma.config.HttpConfig;
import org.seaweedfs.rdma.config.RdmaConfig;
import org.seaweedfs.rdma.metrics.RdmaMetrics;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.ReadPathStatus;

/**
 * What every HttpApiVerticle instance shares: one instance of this is handed to all of them, so the
 * admission limit holds across event loops.
 *
 * @param maxNeedleBytes bound on decompressed bodies
 * @param scrapeRegistry served on {@code /metrics}; null answers 404 there
 * @param connections    bounds on open connections and header time, shared by every instance
 * @param sliceSource    what {@code /read} reads from: {@code source}, or (http.readSliceFallback: false) the same
 *                       read path without its fallbacks, so a read RDMA cannot serve fails at once
 */
public record HttpApiContext(
        NeedleSource source,
        ReadPathStatus status,
        HttpConfig http,
        long maxNeedleBytes,
        Admission admission,
        ReadMeters meters,
        PrometheusMeterRegistry scrapeRegistry,
        ConnectionBounds connections,
        NeedleSource sliceSource) {

    public HttpApiContext {
        Objects.requireNonNull(sliceSource, "sliceSource");
        Objects.requireNonNull(connections, "connections");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(http, "http");
        Objects.requireNonNull(admission, "admission");
        Objects.requireNonNull(meters, "meters");
    }

    /** With connection bounds from {@code http}, their counters kept nowhere (tests, embedding). */
    public HttpApiContext(NeedleSource source, ReadPathStatus status, HttpConfig http, long maxNeedleBytes,
                          Admission admission, ReadMeters meters, PrometheusMeterRegistry scrapeRegistry) {
        this(source, status, http, maxNeedleBytes, admission, meters, scrapeRegistry,
                new ConnectionBounds(http, scrapeRegistry != null ? scrapeRegistry : ReadMeters.nowhere()), source);
    }

    /** From the configuration; {@code metrics} may be null (metrics.enabled: false). */
    public static HttpApiContext create(NeedleSource source, ReadPathStatus status, RdmaConfig config,
                                        RdmaMetrics metrics) {
        return create(source, source, status, config, metrics);
    }

    /** As {@link #create(NeedleSource, ReadPathStatus, RdmaConfig, RdmaMetrics)}, {@code /read} reading {@code sliceSource}. */
    public static HttpApiContext create(NeedleSource source, NeedleSource sliceSource, ReadPathStatus status,
                                        RdmaConfig config, RdmaMetrics metrics) {
        Admission admission = new Admission(config.http().maxInFlight());
        ReadMeters meters = metrics == null ? ReadMeters.noop() : metrics.read();
        meters.bindReadsInFlight(admission::inFlight);
        return new HttpApiContext(source, status, config.http(), config.sidecar().maxNeedleBytes(), admission, meters,
                metrics == null ? null : metrics.registry(),
                new ConnectionBounds(config.http(), metrics == null ? ReadMeters.nowhere() : metrics.registry()),
                sliceSource);
    }
}
