package org.seaweedfs.rdma.config;

import java.util.Set;

/** The whole configuration, validated; build it with {@link ConfigLoader}. */
public record RdmaConfig(
        Set<Role> roles,
        HttpConfig http,
        AgentConfig agent,
        SidecarConfig sidecar,
        UcxConfig ucx,
        MetricsConfig metrics,
        LoggingConfig logging,
        ClusterConfig cluster) {

    public RdmaConfig {
        roles = Set.copyOf(roles);
    }

    public boolean runs(Role role) {
        return roles.contains(role);
    }
}
