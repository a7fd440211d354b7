package org.seaweedfs.rdma.volume.ec;

/**
 * A run of bytes of the original {@code .dat} stored contiguously in one shard.
 *
 * @param shardId     which {@code .ecNN} file (0 .. dataShards-1)
 * @param shardOffset where the run starts in that file
 * @param length      bytes (positive)
 */
public record EcInterval(int shardId, long shardOffset, long length) {
    public EcInterval {
        if (shardId < 0 || shardOffset < 0 || length <= 0) {
            throw new IllegalArgumentException("bad interval: shard " + shardId + ", offset " + shardOffset
                    + ", length " + length);
        }
    }
}
