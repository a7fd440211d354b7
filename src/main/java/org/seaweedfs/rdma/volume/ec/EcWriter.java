package org.seaweedfs.rdma.volume.ec;

import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.IndexReplay;
import org.seaweedfs.rdma.volume.NeedleMap;
import org.seaweedfs.rdma.volume.SuperBlock;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Turns a {@code .dat} and its {@code .idx} into an EC volume exactly as SeaweedFS's {@code ec.encode} does
 * (weed/storage/erasure_coding/ec_encoder.go, weed/server/volume_grpc_erasure_coding.go): the shards
 * {@code .ec00 .. .ecNN} in {@link EcLayout}'s layout, the {@code .ecx} (the live index entries sorted by key), an
 * empty {@code .ecj} and the {@code .vif}. Runs of zeros the size of a whole coding chunk in every data shard are
 * left as holes (their parity is zero too), so a sparse {@code .dat} gives sparse shards with the same bytes.
 * Memory: one chunk (at most 1 MiB) per shard.
 */
public final class EcWriter {

    /** What was written. */
    public record Result(EcFiles files, EcVolumeInfo info, long shardSize, long liveNeedles) {
    }

    private static final int MAX_CHUNK = 1 << 20;

    private EcWriter() {
    }

    public static Result write(Path dat, Path idx, EcFiles out, EcLayout layout, IndexFormat format, long encodeTsNs)
            throws IOException {
        List<Path> created = new ArrayList<>();
        try (FileChannel datChannel = FileChannel.open(dat, StandardOpenOption.READ)) {
            SuperBlock superBlock = SuperBlock.read(datChannel, dat.toString());
            long datSize = datChannel.size();
            long live = writeSortedIndex(idx, out.ecx(), format, created);
            long shardSize = writeShards(datChannel, datSize, out, layout, created);
            created.add(out.ecj());
            Files.write(out.ecj(), new byte[0]);
            EcVolumeInfo info =
                    EcVolumeInfo.of(superBlock.version(), datSize, layout.dataShards(), layout.parityShards());
            created.add(out.vif());
            Files.write(out.vif(), info.toJson(encodeTsNs));
            return new Result(out, info, shardSize, live);
        } catch (IOException | RuntimeException e) {
            for (Path p : created) {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    /** The {@code .idx} replayed (SeaweedFS's rule), its live entries written sorted by unsigned key. */
    static long writeSortedIndex(Path idx, Path ecx, IndexFormat format, List<Path> created) throws IOException {
        NeedleMap map = new NeedleMap();
        new IndexReplay(format).load(idx, map);
        long[] flipped = new long[map.size()];
        int[] n = {0};
        map.forEach((key, offset, size) -> flipped[n[0]++] = key ^ Long.MIN_VALUE);
        Arrays.sort(flipped);
        created.add(ecx);
        try (FileChannel ch = FileChannel.open(ecx, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            ByteBuffer block = ByteBuffer.allocate(4096 * format.entrySize());
            for (long f : flipped) {
                long key = f ^ Long.MIN_VALUE;
                int slot = map.slotOf(key);
                format.put(block, key, map.offsetAt(slot), map.sizeAt(slot));
                if (!block.hasRemaining()) {
                    drain(ch, block);
                }
            }
            drain(ch, block);
        }
        return flipped.length;
    }

    private static long writeShards(FileChannel dat, long datSize, EcFiles out, EcLayout layout, List<Path> created)
            throws IOException {
        int total = layout.totalShards();
        ReedSolomon codec = new ReedSolomon(layout.dataShards(), layout.parityShards());
        FileChannel[] shards = new FileChannel[total];
        try {
            for (int i = 0; i < total; i++) {
                created.add(out.shard(i));
                shards[i] =
                        FileChannel.open(out.shard(i), StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE);
            }
            int chunk = chunkSize(layout);
            byte[][] buffers = new byte[total][chunk];
            long datPosition = 0;
            long shardPosition = 0;
            long largeRows = layout.largeRows(datSize);
            long rows = largeRows + layout.smallRows(datSize);
            for (long row = 0; row < rows; row++) {
                long block = row < largeRows ? layout.largeBlockSize() : layout.smallBlockSize();
                for (long inBlock = 0; inBlock < block; inBlock += chunk) {
                    boolean allZero = true;
                    for (int i = 0; i < layout.dataShards(); i++) {
                        allZero &= read(dat, datSize, datPosition + i * block + inBlock, buffers[i]);
                    }
                    if (!allZero) {
                        codec.encodeParity(buffers, 0, chunk);
                        for (int i = 0; i < total; i++) {
                            ByteBuffer b = ByteBuffer.wrap(buffers[i]);
                            while (b.hasRemaining()) {
                                shards[i].write(b, shardPosition + inBlock + b.position());
                            }
                        }
                    }
                }
                datPosition += block * layout.dataShards();
                shardPosition += block;
            }
            for (FileChannel shard : shards) {
                if (shard.size() < shardPosition) {
                    shard.write(ByteBuffer.allocate(1), shardPosition - 1);
                }
            }
            return shardPosition;
        } finally {
            for (FileChannel shard : shards) {
                if (shard != null) {
                    shard.close();
                }
            }
        }
    }

    /** Fills {@code into} from the .dat (zeros past its end); returns whether every byte is zero. */
    private static boolean read(FileChannel dat, long datSize, long position, byte[] into) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(into);
        long available = Math.max(0, Math.min(into.length, datSize - position));
        b.limit((int) available);
        while (b.hasRemaining()) {
            if (dat.read(b, position + b.position()) <= 0) {
                throw new IOException(".dat shrank while being encoded, at " + (position + b.position()));
            }
        }
        Arrays.fill(into, (int) available, into.length, (byte) 0);
        for (byte x : into) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }

    private static void drain(FileChannel ch, ByteBuffer block) throws IOException {
        block.flip();
        while (block.hasRemaining()) {
            ch.write(block);
        }
        block.clear();
    }

    /** The largest size of at most {@link #MAX_CHUNK} that divides both block sizes. */
    static int chunkSize(EcLayout layout) {
        long common = gcd(layout.largeBlockSize(), layout.smallBlockSize());
        for (long parts = (common + MAX_CHUNK - 1) / MAX_CHUNK; ; parts++) {
            if (common % parts == 0) {
                return (int) (common / parts);
            }
        }
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }
}
