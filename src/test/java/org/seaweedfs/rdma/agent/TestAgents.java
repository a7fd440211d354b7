package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;
import org.seaweedfs.rdma.volume.ec.EcLayout;
import org.seaweedfs.rdma.volume.ec.EcTestVolumes;

/**
 * Agents cut into smaller pieces than the product's, for what tests cannot reach with its own in reasonable time
 * (the package-private {@link AgentVerticle} constructor says what): copies of several segments, EC shards of several
 * segments, and EC volumes with large rows.
 */
public final class TestAgents {

    /** The product's segment size. */
    public static final long SEGMENT_BYTES = DatSegments.SEGMENT_BYTES;
    /**
     * Segments for tests of UCX copies (copying a whole 1 GiB segment takes seconds, one of 64 KiB none) and of EC
     * volumes (a shard passes 1 GiB only for a {@code .dat} of 10 GiB).
     */
    public static final long SMALL_SEGMENT_BYTES = 64 << 10;

    private TestAgents() {
    }

    /**
     * An agent cutting volumes into segments of {@code segmentBytes}, reading EC volumes with the blocks of
     * {@link EcTestVolumes} when {@code smallEcBlocks} (else SeaweedFS's).
     */
    public static AgentVerticle create(UcxWorkerVerticle ucx, AgentSettings settings, long segmentBytes,
                                       boolean smallEcBlocks) {
        return smallEcBlocks
                ? new AgentVerticle(ucx, settings, segmentBytes, EcTestVolumes.TEST_LARGE_BLOCK,
                        EcTestVolumes.TEST_SMALL_BLOCK)
                : new AgentVerticle(ucx, settings, segmentBytes, EcLayout.LARGE_BLOCK, EcLayout.SMALL_BLOCK);
    }
}
