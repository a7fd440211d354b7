package org.seaweedfs.rdma.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The sidecar role's read path.
 *
 * @param agents           agents known up front
 * @param master           SeaweedFS master for {@code /dir/lookup}; null when unused
 * @param volumeServers    volume servers a {@code /read?volume_server=} hint may name besides the master's locations
 * @param authToken        token presented to agents at hello; null when they need none
 * @param maxNeedleBytes   largest needle served (and largest decompressed body)
 * @param maxInFlightReads reads served at once, over UCX and the fallbacks: the HTTP face answers 503 with
 *                         Retry-After beyond it, the read path fails event-bus reads beyond it OVERLOADED (503)
 * @param readTimeout      one read, end to end, before it fails with 504
 * @param ping             health pings per agent
 * @param breaker          the circuit breaker per agent
 * @param fallback         where reads degrade to, in order, when RDMA cannot serve them
 * @param locationCacheMaxBytes heap budget of the needle-location cache (all agents together)
 * @param ecRebuild        what a read needing a shard no agent lists does
 * @param securityToml     SeaweedFS's {@code security.toml}, whose {@code [https.client]} says how the master and the
 *                         volume servers are reached (HTTPS, CA, client certificate); null: plain HTTP
 * @param batch            bounds on reads of many needles in one call ({@code readMany}, {@code POST /batch})
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
        Breaker breaker,
        List<Fallback> fallback,
        long locationCacheMaxBytes,
        EcRebuild ecRebuild,
        String securityToml,
        Batch batch) {

    /**
     * Event loops consuming {@code readMany} calls: one per core (at least one), so that calls in flight at once are
     * read on several cores, as HTTP connections are spread over {@code http.instances}; no more than the event loops
     * there are (two consumers on one loop would only take turns). Single reads and stats keep one consumer: a
     * requester on its event loop then makes no thread hop, and more consumers would only spread reads whose
     * requesters pay a cross-thread wake-up each way anyway.
     */
    public static int readManyConsumers(int cores, int eventLoops) {
        return Math.max(1, Math.min(cores, eventLoops));
    }

    /** {@code sidecar.locationCache.maxBytes}'s default. */
    public static final long DEFAULT_LOCATION_CACHE_BYTES = 64L << 20;

    /** Heap a sidecar needs besides its location cache (buffers of reads in flight, HTTP, metrics, classes' data). */
    public static final long WORKING_HEAP_BYTES = 64L << 20;

    public SidecarConfig {
        agents = List.copyOf(agents);
        volumeServers = List.copyOf(volumeServers);
        fallback = List.copyOf(fallback);
        Objects.requireNonNull(ecRebuild, "sidecar.ecRebuild");
        Objects.requireNonNull(batch, "sidecar.batch");
    }

    /** Registered read buffers: {@code totalBytes / bufferSize} of them. */
    public record BufferPool(int bufferSize, long totalBytes) {
    }

    /**
     * Health pings per agent ({@code sidecar.ping.interval}); an agent silent for {@link #timeout} is down.
     */
    public record Ping(Duration interval) {

        public Ping {
            Objects.requireNonNull(interval, "sidecar.ping.interval");
        }

        /**
         * Half the interval. A pong costs the agent microseconds, so one not back by then means a hung or lost agent;
         * each ping is settled before the next is due, and a hang is noticed within one and a half intervals.
         */
        public Duration timeout() {
            return interval.dividedBy(2);
        }
    }

    /**
     * The circuit breaker per agent ({@code sidecar.breaker.openDuration}): how long it stays open before trial calls
     * may tell a recovered agent from one that still fails. Its window and thresholds are fixed where the breaker is
     * built ({@code ResilienceSettings}).
     */
    public record Breaker(Duration openDuration) {

        public Breaker {
            Objects.requireNonNull(openDuration, "sidecar.breaker.openDuration");
        }
    }

    /**
     * Bounds on one read of many needles ({@code sidecar.batch.*}).
     *
     * @param maxFids         fids in one call; more: 413 on HTTP, 400 on the event bus
     * @param maxRequestBytes bytes of a {@code POST /batch} body; more: 413
     * @param window          reads of one call started and not yet handed on (written out, copied to the caller):
     *                        what bounds the pooled memory one call holds
     * @param maxReplyBytes   needle bytes in one event-bus reply frame; needles beyond fail in the frame (400
     *                        "too large: ...")
     */
    public record Batch(int maxFids, long maxRequestBytes, int window, long maxReplyBytes) {

        public static final Batch DEFAULT = new Batch(10_000, 1L << 20, 32, 64L << 20);

        public Batch {
            if (maxFids < 1 || maxRequestBytes < 1 || window < 1 || maxReplyBytes < 1) {
                throw new IllegalArgumentException("sidecar.batch bounds must be positive");
            }
        }
    }
}
