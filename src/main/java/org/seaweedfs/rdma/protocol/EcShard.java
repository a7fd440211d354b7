package org.seaweedfs.rdma.protocol;

import java.util.List;

/**
 * One EC shard file ({@code .ecNN}) an agent serves: its registered mappings, with {@link Segment#fileOffset()} the
 * offset in the shard file (not the {@code .dat}).
 *
 * @param shardId  0 .. dataShards + parityShards - 1
 * @param segments in file order, {@code index} equal to the position, non-overlapping, none past the shard size
 */
public record EcShard(int shardId, List<Segment> segments) {
    public EcShard {
        FieldCheck.range("EcShard.shardId", shardId, 0, EcInfo.MAX_SHARDS - 1);
        FieldCheck.count("EcShard.segments", segments, ProtocolLimits.MAX_SEGMENTS);
        segments = List.copyOf(segments);
    }

    /** The segment holding byte {@code shardOffset} of the shard file, or null when none maps it. */
    public Segment segmentAt(long shardOffset) {
        return Segments.at(segments, shardOffset);
    }
}
