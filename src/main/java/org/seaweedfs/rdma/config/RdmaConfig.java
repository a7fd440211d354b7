package org.seaweedfs.rdma.config;

import java.util.Set;

/**
 * The whole configuration, validated; build it with {@link ConfigLoader}.
 *
 * @param idlePollMicros how long a thread that owns a UCX worker or an event loop keeps polling after its last event
 *                       before it sleeps ({@code org.seaweedfs.rdma.polling.PollingPolicy})
 */
public record RdmaConfig(
        Set<Role> roles,
        HttpConfig http,
        AgentConfig agent,
        SidecarConfig sidecar,
        UcxConfig ucx,
        MetricsConfig metrics,
        LoggingConfig logging,
        ClusterConfig cluster,
        int idlePollMicros) {

    public RdmaConfig {
        roles = Set.copyOf(roles);
    }

    public boolean runs(Role role) {
        return roles.contains(role);
    }
}
