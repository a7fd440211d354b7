package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;
import org.seaweedfs.rdma.volume.ec.EcTestVolumes;

/**
 * An agent that reads EC volumes with the tests' small blocks ({@link EcTestVolumes}): a large EC row of SeaweedFS's
 * own blocks is ten 1 GiB blocks, so only small blocks put every kind of block boundary into a test volume.
 */
public final class SmallEcBlocksAgent {

    private SmallEcBlocksAgent() {
    }

    public static AgentVerticle create(UcxWorkerVerticle ucx, AgentSettings settings) {
        return new AgentVerticle(ucx, settings, EcTestVolumes.TEST_LARGE_BLOCK, EcTestVolumes.TEST_SMALL_BLOCK);
    }
}
