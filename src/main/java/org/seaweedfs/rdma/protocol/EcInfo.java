package org.seaweedfs.rdma.protocol;

import java.util.List;

/**
 * The erasure-coded form of a volume (protocol version 2): the agent holds some of its shard files and lists them
 * here; needle offsets and sizes stay in {@code .dat} coordinates and a reader maps them onto shards with
 * SeaweedFS's layout (rows of {@code dataShards} blocks, large blocks while a whole large row remains, then small
 * ones; see {@code volume.ec.EcLayout}).
 *
 * @param dataShards     data shards (1..32, data + parity at most 32)
 * @param parityShards   parity shards (1..32)
 * @param datFileSize    the original {@code .dat}'s size from the {@code .vif}; 0 when the {@code .vif} does not say
 *                       (old volumes: readers then use {@code shardSize - 1} as SeaweedFS does)
 * @param shardSize      the size of every shard file
 * @param largeBlockSize the layout's large block (1 GiB in SeaweedFS)
 * @param smallBlockSize the layout's small block (1 MiB in SeaweedFS), at most the large one
 * @param shards         the shards this agent serves, by ascending shard id, each id below data + parity
 */
public record EcInfo(int dataShards, int parityShards, long datFileSize, long shardSize, long largeBlockSize,
                     long smallBlockSize, List<EcShard> shards) {

    /** SeaweedFS keeps shard ids in a 32-bit mask. */
    public static final int MAX_SHARDS = 32;

    public EcInfo {
        FieldCheck.range("EcInfo.dataShards", dataShards, 1, MAX_SHARDS - 1);
        FieldCheck.range("EcInfo.parityShards", parityShards, 1, MAX_SHARDS - dataShards);
        FieldCheck.nonNegative("EcInfo.datFileSize", datFileSize);
        FieldCheck.nonNegative("EcInfo.shardSize", shardSize);
        FieldCheck.range("EcInfo.smallBlockSize", smallBlockSize, 1, Long.MAX_VALUE);
        FieldCheck.range("EcInfo.largeBlockSize", largeBlockSize, smallBlockSize, Long.MAX_VALUE);
        FieldCheck.count("EcInfo.shards", shards, MAX_SHARDS);
        shards = List.copyOf(shards);
        int previous = -1;
        for (int i = 0; i < shards.size(); i++) {
            EcShard shard = shards.get(i);
            String field = "EcInfo.shards[" + i + "]";
            if (shard.shardId() <= previous || shard.shardId() >= dataShards + parityShards) {
                throw FieldCheck.bad(field + ".shardId", shard.shardId() + " is not ascending or not below "
                        + (dataShards + parityShards));
            }
            previous = shard.shardId();
            Segments.check(field + ".segments", shard.segments(), shardSize, "shardSize");
        }
    }

    public int totalShards() {
        return dataShards + parityShards;
    }

    /** The shard with this id, or null when this agent does not serve it. */
    public EcShard shard(int shardId) {
        for (EcShard shard : shards) {
            if (shard.shardId() == shardId) {
                return shard;
            }
        }
        return null;
    }

    /** Segments of all shards, in list order (how a reader numbers their remote keys after the volume's own). */
    public int segmentCount() {
        int n = 0;
        for (EcShard shard : shards) {
            n += shard.segments().size();
        }
        return n;
    }
}
