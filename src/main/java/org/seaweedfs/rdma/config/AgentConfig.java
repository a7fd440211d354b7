package org.seaweedfs.rdma.config;

import java.util.List;

/**
 * The agent role, beside a volume server.
 *
 * @param offset5   the volume server was built with 5-byte offsets (17-byte .idx entries)
 * @param authToken shared secret sidecars present at hello; null accepts any sidecar
 */
public record AgentConfig(HostPort listen, List<String> volumeDirs, boolean offset5, String authToken) {

    public AgentConfig {
        volumeDirs = List.copyOf(volumeDirs);
    }
}
