package org.seaweedfs.rdma.http;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Objects;
import org.seaweedfs.rdma.sidecar.Admission;
import org.seaweedfs.rdma.config.HttpConfig;
import org.seaweedfs.rdma.config.RdmaConfig;
import org.seaweedfs.rdma.config.SidecarConfig;
import org.seaweedfs.rdma.metrics.RdmaMetrics;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.ReadPathStatus;

/**
 * What every HttpApiVerticle instance shares: one instance of this is handed to all of them.
 *
 * @param source         the sidecar's read path; null (with {@code status}) in a process without the sidecar role:
 *                       then only {@code /health}, {@code /ready}, {@code /status}, {@code /metrics} and {@code /ui}
 *                       are served
 * @param maxNeedleBytes bound on decompressed bodies
 * @param admission      the read path's one admission, which {@code source} and {@code sliceSource} take (shown on
 *                       {@code /status})
 * @param scrapeRegistry served on {@code /metrics}; null answers 404 there
 * @param connections    bounds on open connections and header time, shared by every instance
 * @param sliceSource    what {@code /read} reads from: {@code source}, or (http.readSliceFallback: false) the same
 *                       read path without its fallbacks, so a read RDMA cannot serve fails at once
 * @param agent          the agent role's status when this process runs one, else null
 * @param history        the read path's recent rates ({@code /status/history}), null when not kept
 * @param batch          bounds of {@code POST /batch} ({@code sidecar.batch.*})
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
        NeedleSource sliceSource,
        RoleStatus agent,
        StatusHistory history,
        SidecarConfig.Batch batch) {

    public HttpApiContext {
        Objects.requireNonNull(connections, "connections");
        if ((source == null) != (status == null) || (source == null) != (sliceSource == null)) {
            throw new IllegalArgumentException(
                    "source, sliceSource and status come together (the sidecar role) or not at all");
        }
        if (source == null && agent == null) {
            throw new IllegalArgumentException("an HTTP API with neither the sidecar nor the agent role");
        }
        Objects.requireNonNull(http, "http");
        Objects.requireNonNull(admission, "admission");
        Objects.requireNonNull(meters, "meters");
        Objects.requireNonNull(batch, "batch");
    }

    /** With the default {@code sidecar.batch.*} bounds. */
    public HttpApiContext(NeedleSource source, ReadPathStatus status, HttpConfig http, long maxNeedleBytes,
                          Admission admission, ReadMeters meters, PrometheusMeterRegistry scrapeRegistry,
                          ConnectionBounds connections, NeedleSource sliceSource, RoleStatus agent,
                          StatusHistory history) {
        this(source, status, http, maxNeedleBytes, admission, meters, scrapeRegistry, connections, sliceSource, agent,
                history, SidecarConfig.Batch.DEFAULT);
    }

    public HttpApiContext(NeedleSource source, ReadPathStatus status, HttpConfig http, long maxNeedleBytes,
                          Admission admission, ReadMeters meters, PrometheusMeterRegistry scrapeRegistry,
                          ConnectionBounds connections) {
        this(source, status, http, maxNeedleBytes, admission, meters, scrapeRegistry, connections, source, null, null);
    }

    /** With connection bounds from {@code http}, their counters kept nowhere (tests, embedding). */
    public HttpApiContext(NeedleSource source, ReadPathStatus status, HttpConfig http, long maxNeedleBytes,
                          Admission admission, ReadMeters meters, PrometheusMeterRegistry scrapeRegistry) {
        this(source, status, http, maxNeedleBytes, admission, meters, scrapeRegistry,
                new ConnectionBounds(http, scrapeRegistry != null ? scrapeRegistry : ReadMeters.nowhere()));
    }

    /** From the configuration; {@code metrics} may be null (metrics.enabled: false). */
    public static HttpApiContext create(NeedleSource source, ReadPathStatus status, Admission admission,
                                        RdmaConfig config, RdmaMetrics metrics) {
        return create(source, source, status, admission, config, metrics);
    }

    /**
     * As {@link #create(NeedleSource, ReadPathStatus, Admission, RdmaConfig, RdmaMetrics)}, {@code /read} reading
     * {@code sliceSource}.
     */
    public static HttpApiContext create(NeedleSource source, NeedleSource sliceSource, ReadPathStatus status,
                                        Admission admission, RdmaConfig config, RdmaMetrics metrics) {
        ReadMeters meters = metrics == null ? ReadMeters.noop() : metrics.read();
        meters.bindReadsInFlight(admission::inFlight);
        return new HttpApiContext(source, status, config.http(), config.sidecar().maxNeedleBytes(), admission, meters,
                metrics == null ? null : metrics.registry(),
                new ConnectionBounds(config.http(), metrics == null ? ReadMeters.nowhere() : metrics.meterRegistry()),
                sliceSource, null, null, config.sidecar().batch());
    }

    /** The listener of a process without the sidecar role: health, readiness, status and metrics of {@code agent}. */
    public static HttpApiContext withoutSidecar(RoleStatus agent, RdmaConfig config, RdmaMetrics metrics) {
        return new HttpApiContext(null, null, config.http(), config.sidecar().maxNeedleBytes(),
                new Admission(config.sidecar().maxInFlightReads()), ReadMeters.noop(),
                metrics == null ? null : metrics.registry(),
                new ConnectionBounds(config.http(), metrics == null ? ReadMeters.nowhere() : metrics.meterRegistry()),
                null, agent, null);
    }

    /** Whether the sidecar role runs here (needle routes, the read path's health). */
    public boolean sidecar() {
        return source != null;
    }

    /** This context with the agent role's status beside the sidecar's. */
    public HttpApiContext withAgent(RoleStatus agentStatus) {
        return new HttpApiContext(source, status, http, maxNeedleBytes, admission, meters, scrapeRegistry, connections,
                sliceSource, agentStatus, history, batch);
    }

    /** This context keeping {@code recent} for {@code /status/history}. */
    public HttpApiContext withHistory(StatusHistory recent) {
        return new HttpApiContext(source, status, http, maxNeedleBytes, admission, meters, scrapeRegistry, connections,
                sliceSource, agent, recent, batch);
    }
}
