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

    /**
     * A read needed a shard of {@code volumeId} that no connected agent lists: look for more holders (the master's
     * {@code /dir/lookup} answers with an EC volume's shard holders). Asynchronous; the default looks nowhere.
     */
    default void shardMissing(long volumeId) {
    }

    /** Holders from {@code volumes}, asking {@code discovery} for more when a shard is missing. */
    static EcShardHolders of(EcShardHolders volumes, java.util.function.LongConsumer discovery) {
        return new EcShardHolders() {
            @Override
            public List<RemoteVolume> volumesOf(long volumeId) {
                return volumes.volumesOf(volumeId);
            }

            @Override
            public void shardMissing(long volumeId) {
                discovery.accept(volumeId);
            }
        };
    }
}
