package org.seaweedfs.rdma.volume.ec;

import java.util.ArrayList;
import java.util.List;

/**
 * How SeaweedFS's {@code ec.encode} lays a {@code .dat} out over shards (weed/storage/erasure_coding/ec_encoder.go,
 * ec_locate.go): the file is cut into rows of {@code dataShards} blocks, large blocks (1 GiB) while a whole large
 * row remains, then small blocks (1 MiB, the last row zero-padded); block {@code i} of a row goes to shard
 * {@code i % dataShards}, rows follow one another in every shard. Parity shards hold, row by row, the
 * Reed-Solomon parity of the data shards' bytes at the same offset.
 *
 * <p>The block sizes are parameters so tests can use small ones (as SeaweedFS's own tests do); production
 * volumes always use {@link #LARGE_BLOCK} and {@link #SMALL_BLOCK}. The row width is {@code dataShards}, as the
 * encoder writes it (SeaweedFS's reader hard-codes 10, which is the same for the default 10+4).
 */
public record EcLayout(int dataShards, int parityShards, long largeBlockSize, long smallBlockSize) {

    public static final long LARGE_BLOCK = 1L << 30;
    public static final long SMALL_BLOCK = 1L << 20;
    public static final int DEFAULT_DATA_SHARDS = 10;
    public static final int DEFAULT_PARITY_SHARDS = 4;
    /** SeaweedFS keeps shard ids in a 32-bit mask. */
    public static final int MAX_SHARDS = 32;

    public EcLayout {
        if (dataShards <= 0 || parityShards <= 0 || dataShards + parityShards > MAX_SHARDS) {
            throw new IllegalArgumentException("shard counts must be positive with at most " + MAX_SHARDS
                    + " in all: data " + dataShards + ", parity " + parityShards);
        }
        if (smallBlockSize <= 0 || largeBlockSize < smallBlockSize) {
            throw new IllegalArgumentException("block sizes must satisfy 0 < small <= large: large " + largeBlockSize
                    + ", small " + smallBlockSize);
        }
    }

    /** SeaweedFS's layout with the given shard counts and the real block sizes. */
    public static EcLayout of(int dataShards, int parityShards) {
        return new EcLayout(dataShards, parityShards, LARGE_BLOCK, SMALL_BLOCK);
    }

    /** The default 10 + 4 layout. */
    public static EcLayout standard() {
        return of(DEFAULT_DATA_SHARDS, DEFAULT_PARITY_SHARDS);
    }

    public int totalShards() {
        return dataShards + parityShards;
    }

    /** Rows of large blocks the encoder writes for a {@code .dat} of {@code datSize} bytes. */
    public long largeRows(long datSize) {
        return datSize / (largeBlockSize * dataShards);
    }

    /** Rows of small blocks that follow the large ones. */
    public long smallRows(long datSize) {
        long rest = datSize - largeRows(datSize) * largeBlockSize * dataShards;
        long row = smallBlockSize * dataShards;
        return (rest + row - 1) / row;
    }

    /** The length of every shard file the encoder writes for a {@code .dat} of {@code datSize} bytes. */
    public long shardFileSize(long datSize) {
        return largeRows(datSize) * largeBlockSize + smallRows(datSize) * smallBlockSize;
    }

    /**
     * The "shard dat size" SeaweedFS's locator works from: {@code datFileSize / dataShards} when the {@code .vif}
     * records the {@code .dat}'s size, else (old volumes) the shard file's size minus one, which keeps a shard
     * that is an exact multiple of the large block from being read as all large rows.
     */
    public long shardDatSize(long datFileSize, long shardFileSize) {
        return datFileSize > 0 ? datFileSize / dataShards : shardFileSize - 1;
    }

    /**
     * Where the bytes {@code [offset, offset + length)} of the {@code .dat} are, in order (SeaweedFS's
     * {@code LocateData} then {@code ToShardIdAndOffset}).
     *
     * @param shardDatSize see {@link #shardDatSize}
     */
    public List<EcInterval> locate(long shardDatSize, long offset, long length) {
        if (shardDatSize < 0 || offset < 0 || length < 0 || offset > Long.MAX_VALUE - length) {
            throw new IllegalArgumentException("bad range: shard dat size " + shardDatSize + ", offset " + offset
                    + ", length " + length);
        }
        long largeRows = shardDatSize / largeBlockSize;
        long largeArea = largeRows * largeBlockSize * dataShards;
        List<EcInterval> intervals = new ArrayList<>();
        long position = offset;
        long end = offset + length;
        while (position < end) {
            boolean large = position < largeArea;
            long block = large ? largeBlockSize : smallBlockSize;
            long relative = large ? position : position - largeArea;
            long blockIndex = relative / block;
            long inner = relative % block;
            long row = blockIndex / dataShards;
            int shard = (int) (blockIndex % dataShards);
            long shardOffset = (large ? 0 : largeRows * largeBlockSize) + row * block + inner;
            long run = Math.min(end - position, block - inner);
            intervals.add(new EcInterval(shard, shardOffset, run));
            position += run;
        }
        return intervals;
    }
}
