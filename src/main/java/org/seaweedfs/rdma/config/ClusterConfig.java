package org.seaweedfs.rdma.config;

import java.util.List;

/**
 * A clustered event bus (Hazelcast, TCP join, no multicast).
 *
 * @param enabled whether {@code serve} joins a cluster (off: the event bus is this JVM's only)
 * @param host    the address the other members reach this one at (Hazelcast and the event bus bind to it)
 * @param port    Hazelcast's port; 0 picks a free one (fine for a member nobody lists)
 * @param members {@code host:port} of members to join (their {@code cluster.port}); empty: this one starts a cluster
 */
public record ClusterConfig(boolean enabled, String host, int port, List<HostPort> members) {

    public ClusterConfig {
        members = List.copyOf(members);
    }

    /** Clustering off (the default). */
    public static ClusterConfig disabled() {
        return new ClusterConfig(false, "127.0.0.1", 5701, List.of());
    }
}
