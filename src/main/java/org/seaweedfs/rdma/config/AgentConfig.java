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
 * @param indexDir           where the agent keeps its needle index files; null: beside each volume
 * @param volumeIdxDir       the volume server's {@code -dir.idx} (its .idx, .ecx and .ecj files); null: none
 * @param maxHeapBytes       the JVM heap {@code serve} gives an agent-only process started without a heap option
 *                           (0: the JVM's default); the needle index is off the heap, so this does not grow with
 *                           the needles served
 */
public record AgentConfig(HostPort listen, List<String> volumeDirs, boolean offset5, String authToken,
                          String volumeMemory, long volumeMemoryLimit, String indexDir, String volumeIdxDir,
                          long maxHeapBytes) {

    /** {@code agent.maxHeap}'s default. */
    public static final long DEFAULT_MAX_HEAP_BYTES = 256L << 20;
    /** The least heap {@code agent.maxHeap} may give. */
    public static final long MIN_HEAP_BYTES = 64L << 20;

    public AgentConfig {
        volumeDirs = List.copyOf(volumeDirs);
    }
}
