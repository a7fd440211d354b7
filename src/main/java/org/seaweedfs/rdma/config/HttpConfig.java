package org.seaweedfs.rdma.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The sidecar's HTTP face.
 *
 * @param instances      how many {@code HttpApiVerticle} instances (event loops) share the port; {@value
 * #AUTO_INSTANCES}
 *                       (the default) is {@link #autoInstances(int) half the cores}
 * @param jwtReadKey     HS256 key for SeaweedFS read tokens; null disables read authorization
 * @param headerTimeout  a connection's next request headers must be complete within this long (from the
 *                       connection's start or the end of its previous response), or it is closed
 * @param idleTimeout    a connection with nothing read or written for this long is closed
 * @param maxConnections HTTP connections open at once across all instances; beyond it new ones are closed at once
 * @param readSliceClients clients that may call {@code /read} without a read token when {@code jwtReadKey} is set
 *                       ({@code weed mount} sends none); needle URLs still need one from everybody
 * @param readSliceFallback whether a {@code /read} that RDMA cannot serve is served by the fallbacks (true) or
 *                       answered 503 at once (false: {@code weed mount} re-reads anything not marked RDMA from the
 *                       volume server itself, so fallback bytes would cross the network twice)
 * @param transport      how {@code serve}'s sockets do their I/O (Vert.x's transport, chosen at start-up)
 * @param tlsCert        PEM certificate chain the listener presents (HTTPS); null with {@code tlsKey}: plain HTTP
 * @param tlsKey         PEM private key of {@code tlsCert}
 */
public record HttpConfig(String host, int port, int instances, String jwtReadKey,
                         Duration headerTimeout, Duration idleTimeout, int maxConnections,
                         List<ClientNetwork> readSliceClients, boolean readSliceFallback,
                         NetworkTransport transport, String tlsCert, String tlsKey) {

    /** Loopback only: a mount on the sidecar's own host. */
    public static final List<ClientNetwork> DEFAULT_READ_SLICE_CLIENTS =
            List.of(ClientNetwork.parse("127.0.0.0/8"), ClientNetwork.parse("::1"));

    public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(60);
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);
    public static final int DEFAULT_MAX_CONNECTIONS = 10_000;
    /** {@code http.instances} that means "half the cores". */
    public static final int AUTO_INSTANCES = 0;
    /** {@code http.port}'s default wherever a sidecar runs: clients and the image's health check rely on it. */
    public static final int SIDECAR_PORT = 8081;
    /**
     * {@code http.port}'s default for an agent alone: its own, so an agent beside a sidecar on one host starts with no
     * port settings. SeaweedFS's convention (gRPC = HTTP + 10000) applied to the agent's UCX port 18515; clear of
     * SeaweedFS's defaults (8080, 9333, 8888, 8333, 18080, 19333, 18888).
     */
    public static final int AGENT_ONLY_PORT = 8515;

    public HttpConfig {
        if (instances == AUTO_INSTANCES) {
            instances = autoInstances(Runtime.getRuntime().availableProcessors());
        }
        if (instances < 1) {
            throw new IllegalArgumentException("http.instances must be at least 1 (or 0: half the cores), got "
                    + instances);
        }
        if (headerTimeout.isNegative() || headerTimeout.isZero() || idleTimeout.isNegative() || idleTimeout.isZero()
                || maxConnections < 1) {
            throw new IllegalArgumentException("HTTP connection bounds must be positive");
        }
        readSliceClients = List.copyOf(readSliceClients);
        Objects.requireNonNull(transport, "http.transport");
    }

    /**
     * {@code http.port} when it is not set: {@link #AGENT_ONLY_PORT} for an agent alone, else {@link #SIDECAR_PORT}.
     */
    public static int defaultPort(Set<Role> roles) {
        return roles.equals(Set.of(Role.AGENT)) ? AGENT_ONLY_PORT : SIDECAR_PORT;
    }

    /** Plain HTTP. */
    public HttpConfig(String host, int port, int instances, String jwtReadKey,
                      Duration headerTimeout, Duration idleTimeout, int maxConnections,
                      List<ClientNetwork> readSliceClients, boolean readSliceFallback, NetworkTransport transport) {
        this(host, port, instances, jwtReadKey, headerTimeout, idleTimeout, maxConnections,
                readSliceClients, readSliceFallback, transport, null, null);
    }

    /** With the default transport. */
    public HttpConfig(String host, int port, int instances, String jwtReadKey,
                      Duration headerTimeout, Duration idleTimeout, int maxConnections,
                      List<ClientNetwork> readSliceClients, boolean readSliceFallback) {
        this(host, port, instances, jwtReadKey, headerTimeout, idleTimeout, maxConnections,
                readSliceClients, readSliceFallback, NetworkTransport.AUTO);
    }

    /** With the default {@code /read} settings. */
    public HttpConfig(String host, int port, int instances, String jwtReadKey,
                      Duration headerTimeout, Duration idleTimeout, int maxConnections) {
        this(host, port, instances, jwtReadKey, headerTimeout, idleTimeout, maxConnections,
                DEFAULT_READ_SLICE_CLIENTS, false);
    }

    /** With the default connection bounds. */
    public HttpConfig(String host, int port, int instances, String jwtReadKey) {
        this(host, port, instances, jwtReadKey, DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT,
                DEFAULT_MAX_CONNECTIONS);
    }

    /**
     * The HTTP event loops for {@code cores} cores: half of them, at least one. A loop serving reads takes a core to
     * itself under load, and the rest of the host's work needs the other half: the clients (often on the same host:
     * {@code weed mount}, apps), the kernel's TCP work and, without RDMA, the agent's thread answering emulated gets.
     * On 2 cores one loop served 9-33 % more 4 KiB and 1 MiB reads than two, at less CPU per request.
     */
    public static int autoInstances(int cores) {
        return Math.max(1, cores / 2);
    }

    public boolean readAuthEnabled() {
        return jwtReadKey != null;
    }

    /** Whether the listener speaks HTTPS ({@code tlsCert} and {@code tlsKey} set). */
    public boolean tls() {
        return tlsCert != null && tlsKey != null;
    }
}
