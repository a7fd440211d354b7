package org.seaweedfs.rdma.config;

/**
 * The sidecar's HTTP face.
 *
 * @param instances   how many {@code HttpApiVerticle} instances (event loops) share the port
 * @param maxInFlight needle reads served at once across all instances; beyond it 503 + Retry-After
 * @param jwtReadKey  HS256 key for SeaweedFS read tokens; null disables read authorization
 */
public record HttpConfig(String host, int port, int instances, int maxInFlight, String jwtReadKey) {

    public boolean readAuthEnabled() {
        return jwtReadKey != null;
    }
}
