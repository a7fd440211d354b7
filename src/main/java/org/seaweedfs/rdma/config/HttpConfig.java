package org.seaweedfs.rdma.config;

import java.time.Duration;

/**
 * The sidecar's HTTP face.
 *
 * @param instances      how many {@code HttpApiVerticle} instances (event loops) share the port
 * @param maxInFlight    needle reads served at once across all instances; beyond it 503 + Retry-After
 * @param jwtReadKey     HS256 key for SeaweedFS read tokens; null disables read authorization
 * @param headerTimeout  a connection's next request headers must be complete within this long (from the
 *                       connection's start or the end of its previous response), or it is closed
 * @param idleTimeout    a connection with nothing read or written for this long is closed
 * @param maxConnections HTTP connections open at once across all instances; beyond it new ones are closed at once
 */
public record HttpConfig(String host, int port, int instances, int maxInFlight, String jwtReadKey,
                         Duration headerTimeout, Duration idleTimeout, int maxConnections) {

    public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(60);
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);
    public static final int DEFAULT_MAX_CONNECTIONS = 10_000;

    public HttpConfig {
        if (headerTimeout.isNegative() || headerTimeout.isZero() || idleTimeout.isNegative() || idleTimeout.isZero()
                || maxConnections < 1) {
            throw new IllegalArgumentException("HTTP connection bounds must be positive");
        }
    }

    /** With the default connection bounds. */
    public HttpConfig(String host, int port, int instances, int maxInFlight, String jwtReadKey) {
        this(host, port, instances, maxInFlight, jwtReadKey, DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT,
                DEFAULT_MAX_CONNECTIONS);
    }

    public boolean readAuthEnabled() {
        return jwtReadKey != null;
    }
}
