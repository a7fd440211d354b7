package org.seaweedfs.rdma.sidecar.ec;

import org.seaweedfs.rdma.sidecar.connection.RemoteVolume;

import java.util.List;

/**
 * The seam between EC reads and the connections: every connected agent's current view of a volume. Shards of one
 * EC volume may be spread over several agents, each listing the volume with the shards it holds.
 *
 * <p>Called on every EC read from any thread: thread-safe, cheap, non-blocking.
 */
@FunctionalInterface
public interface EcShardHolders {

    /** Each connection's current view of the volume (empty when none lists it). */
    List<RemoteVolume> volumesOf(long volumeId);
}
