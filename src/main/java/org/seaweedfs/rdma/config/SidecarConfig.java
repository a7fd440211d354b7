package org.seaweedfs.rdma.config;

import java.time.Duration;
import java.util.List;

/**
 * The sidecar role's read path.
 *
 * @param agents           agents known up front
 * @param master           SeaweedFS master for {@code /dir/lookup}; null when unused
 * @param volumeServers    volume servers a {@code /read?volume_server=} hint may name besides the master's locations
 * @param authToken        token presented to agents at hello; null when they need none
 * @param maxNeedleBytes   largest needle served (and largest decompressed body)
 * @param maxInFlightReads UCX reads outstanding at once
 * @param readTimeout      one read, end to end, before it fails with 504
 * @param fallback         where reads degrade to, in order, when RDMA cannot serve them
 * @param eventBusInstances {@code EventBusApiVerticle} instances (each on an event loop; requests are dealt
 *                         round-robin): 1 keeps a requester on its own event loop fastest, more spread the reads
 */
public record SidecarConfig(
        List<HostPort> agents,
        HostPort master,
        List<HostPort> volumeServers,
        String authToken,
        long maxNeedleBytes,
        BufferPool bufferPool,
        int maxInFlightReads,
        Duration readTimeout,
        Ping ping,
        Reconnect reconnect,
        Breaker breaker,
        Retry retry,
        List<Fallback> fallback,
        int eventBusInstances,
        EcRebuild ecRebuild) {

    public SidecarConfig {
        agents = List.copyOf(agents);
        volumeServers = List.copyOf(volumeServers);
        fallback = List.copyOf(fallback);
        java.util.Objects.requireNonNull(ecRebuild, "sidecar.ecRebuild");
    }

    /** Everything but {@code sidecar.ecRebuild}, left at its default (rdma). */
    public SidecarConfig(List<HostPort> agents, HostPort master, List<HostPort> volumeServers, String authToken,
                         long maxNeedleBytes, BufferPool bufferPool, int maxInFlightReads, Duration readTimeout,
                         Ping ping, Reconnect reconnect, Breaker breaker, Retry retry, List<Fallback> fallback,
                         int eventBusInstances) {
        this(agents, master, volumeServers, authToken, maxNeedleBytes, bufferPool, maxInFlightReads, readTimeout,
                ping, reconnect, breaker, retry, fallback, eventBusInstances, EcRebuild.RDMA);
    }

    /** Registered read buffers: {@code totalBytes / bufferSize} of them. */
    public record BufferPool(int bufferSize, long totalBytes) {
    }

    /** Health pings per agent; an agent silent for {@code timeout} is down. */
    public record Ping(Duration interval, Duration timeout) {
    }

    /** Exponential backoff with jitter between reconnection attempts. */
    public record Reconnect(Duration baseBackoff, Duration maxBackoff) {
    }

    /** Resilience4j circuit breaker per agent (count-based window). */
    public record Breaker(int failureRateThreshold, int slidingWindowSize, int minimumCalls,
                          Duration openDuration, int halfOpenCalls) {
    }

    /** Retries of retriable failures only (unavailable, timeout). */
    public record Retry(int maxAttempts, Duration waitDuration) {
    }
}
