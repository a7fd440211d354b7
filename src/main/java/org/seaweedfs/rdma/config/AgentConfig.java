package org.seaweedfs.rdma.config;

import java.util.List;

/**
 * The agent role, beside a volume server.
 *
 * @param offset5   the volume server was built with 5-byte offsets (17-byte .idx entries)
 * @param authToken shared secret sidecars present at hello; null accepts any sidecar
 * @param volumeMemory       where served .dat bytes live: "mapped" (registered file mappings) or "ucx" (copies in
 *                           UCX-allocated memory, read over shared memory by same-host sidecars)
 * @param volumeMemoryLimit  the most bytes of UCX memory the agent allocates for volume copies
 * @param indexCacheDir      where the agent keeps the index files it derives from each volume's own index;
 *                           null: beside each volume
 * @param volumeIdxDir       the volume server's {@code -dir.idx} (its .idx, .ecx and .ecj files); null: none
 */
public record AgentConfig(HostPort listen, List<String> volumeDirs, boolean offset5, String authToken,
                          String volumeMemory, long volumeMemoryLimit, String indexCacheDir, String volumeIdxDir) {

    public AgentConfig {
        volumeDirs = List.copyOf(volumeDirs);
    }
}
