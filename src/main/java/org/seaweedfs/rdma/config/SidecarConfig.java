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
 * @param maxInFlightReads reads served at once, over UCX and the fallbacks: the HTTP face answers 503 with
 *                         Retry-After beyond it, the read path fails event-bus reads beyond it OVERLOADED (503)
 * @param readTimeout      one read, end to end, before it fails with 504
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
        Reconnect reconnect,
        Breaker breaker,
        Retry retry,
        List<Fallback> fallback,
        long locationCacheMaxBytes,
        EcRebuild ecRebuild,
        String securityToml,
        Batch batch) {

    /**
     * Event-bus consumers a sidecar deploys: one. A requester on the consumer's event loop then makes no thread hop,
     * and more consumers only spread reads whose requesters pay a cross-thread wake-up each way anyway.
     */
    public static final int EVENT_BUS_INSTANCES = 1;

    /** {@code sidecar.locationCache.maxBytes}'s default. */
    public static final long DEFAULT_LOCATION_CACHE_BYTES = 64L << 20;

    /** Heap a sidecar needs besides its location cache (buffers of reads in flight, HTTP, metrics, classes' data). */
    public static final long WORKING_HEAP_BYTES = 64L << 20;

    public SidecarConfig {
        agents = List.copyOf(agents);
        volumeServers = List.copyOf(volumeServers);
        fallback = List.copyOf(fallback);
        java.util.Objects.requireNonNull(ecRebuild, "sidecar.ecRebuild");
        java.util.Objects.requireNonNull(batch, "sidecar.batch");
    }

    /** Everything but {@code sidecar.batch.*}, left at their defaults. */
    public SidecarConfig(List<HostPort> agents, HostPort master, List<HostPort> volumeServers, String authToken,
                         long maxNeedleBytes, BufferPool bufferPool, int maxInFlightReads, Duration readTimeout,
                         Ping ping, Reconnect reconnect, Breaker breaker, Retry retry, List<Fallback> fallback,
                         long locationCacheMaxBytes, EcRebuild ecRebuild, String securityToml) {
        this(agents, master, volumeServers, authToken, maxNeedleBytes, bufferPool, maxInFlightReads, readTimeout,
                ping, reconnect, breaker, retry, fallback, locationCacheMaxBytes, ecRebuild, securityToml,
                Batch.DEFAULT);
    }

    /**
     * Everything but {@code sidecar.locationCache.maxBytes} and {@code ecRebuild}, left at their defaults.
     */
    public SidecarConfig(List<HostPort> agents, HostPort master, List<HostPort> volumeServers, String authToken,
                         long maxNeedleBytes, BufferPool bufferPool, int maxInFlightReads, Duration readTimeout,
                         Ping ping, Reconnect reconnect, Breaker breaker, Retry retry, List<Fallback> fallback) {
        this(agents, master, volumeServers, authToken, maxNeedleBytes, bufferPool, maxInFlightReads, readTimeout,
                ping, reconnect, breaker, retry, fallback, DEFAULT_LOCATION_CACHE_BYTES, EcRebuild.RDMA, null);
    }

    /** Registered read buffers: {@code totalBytes / bufferSize} of them. */
    public record BufferPool(int bufferSize, long totalBytes) {
    }

    /** Health pings per agent; an agent silent for {@code timeout} is down. */
    public record Ping(Duration interval, Duration timeout) {

        /**
         * The pings the configuration file gives ({@code sidecar.ping.interval}): the timeout is half the interval.
         * A pong costs the agent microseconds, so one not back by then means a hung or lost agent; each ping is
         * settled before the next is due, and a hang is noticed within one and a half intervals.
         */
        public static Ping every(Duration interval) {
            return new Ping(interval, interval.dividedBy(2));
        }
    }

    /**
     * Backoff with jitter between reconnection attempts: for {@code quickPeriod} after an agent is lost the waits
     * are at most {@code quickBackoff} (an agent back from a restart or a hang is found again at once), then they
     * grow with the time it has been down, up to {@code maxBackoff}.
     */
    public record Reconnect(Duration baseBackoff, Duration maxBackoff, Duration quickBackoff, Duration quickPeriod) {

        /** Waits in the quick phase: an agent back from a restart or a short hang is found within about this. */
        public static final Duration DEFAULT_QUICK_BACKOFF = Duration.ofMillis(250);
        /** The quick phase: long enough for a restart or a hang under load, short enough not to hammer a dead agent. */
        public static final Duration DEFAULT_QUICK_PERIOD = Duration.ofSeconds(30);

        /**
         * The backoff a sidecar uses: a first retry within 200 ms and 30 s of waits of at most 250 ms after an agent
         * is lost, so an agent back from a restart or a hang is read over RDMA again at once; then exponential waits
         * of up to 30 s, so an agent that stays down costs a connection attempt every 15 s or so on average, and
         * comes back into use within 30 s of its return. Full jitter spreads the reconnections of many sidecars.
         */
        public static final Reconnect DEFAULT = new Reconnect(Duration.ofMillis(200), Duration.ofSeconds(30));

        /** The fixed quick phase (30 s of waits of at most 250 ms, or maxBackoff if lower). */
        public Reconnect(Duration baseBackoff, Duration maxBackoff) {
            this(baseBackoff, maxBackoff,
                    DEFAULT_QUICK_BACKOFF.compareTo(maxBackoff) < 0 ? DEFAULT_QUICK_BACKOFF : maxBackoff,
                    DEFAULT_QUICK_PERIOD);
        }
    }

    /** Resilience4j circuit breaker per agent (count-based window). */
    public record Breaker(int failureRateThreshold, int slidingWindowSize, int minimumCalls,
                          Duration openDuration, int halfOpenCalls) {

        /**
         * The breaker the configuration file gives ({@code sidecar.breaker.openDuration}): it opens when half of the
         * last 20 calls failed (at least 10 counted, so a single failure after start-up does not open it) and lets 3
         * trial calls through when half open, enough to tell a recovered agent from one that still fails.
         */
        public static Breaker opening(Duration openDuration) {
            return new Breaker(50, 20, 10, openDuration, 3);
        }
    }

    /** Retries of retriable failures only (unavailable, timeout). */
    public record Retry(int maxAttempts, Duration waitDuration) {

        /**
         * Three attempts 50 ms apart: a read that failed because an agent restarted or a breaker was half open
         * usually succeeds on another agent or the next try, and three keep a dead path's cost within the read
         * timeout.
         */
        public static final Retry DEFAULT = new Retry(3, Duration.ofMillis(50));
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
