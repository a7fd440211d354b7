package org.seaweedfs.rdma.volume.ec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.testing.SparseVolumes;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.SuperBlock;
import org.seaweedfs.rdma.volume.Volume;
import org.seaweedfs.rdma.volume.VolumeFiles;
import org.seaweedfs.rdma.volume.VolumeWriter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real block sizes (1 GiB, 1 MiB) on a sparse 2 GiB+ volume with 2 + 1 shards (one large row), needles placed
 * across a large-block boundary, across the large-to-small boundary and across small blocks.
 */
class EcSparseRealSizeTest {

    private static final long GIB = 1L << 30;
    private static final long MIB = 1L << 20;

    @TempDir
    Path dir;

    @Test
    void needlesAcrossEveryKindOfBoundaryReadRight() throws IOException {
        Path dat = dir.resolve("7.dat");
        Path idx = dir.resolve("7.idx");
        Random random = new Random(7);
        try (VolumeWriter w = VolumeWriter.create(dat, idx, SuperBlock.of(3), IndexFormat.OFFSET4)) {
            w.append(needle(1, 300, random));
        }
        long[] placeAt = {GIB - 1000, 2 * GIB - 300, 2 * GIB + MIB - 50};
        int[] sizes = {5000, 2000, (int) (2 * MIB + 100)};
        for (int i = 0; i < placeAt.length; i++) {
            SparseVolumes.appendAt(dat, idx, IndexFormat.OFFSET4, placeAt[i], needle(2 + i, sizes[i], random));
        }
        EcLayout layout = EcLayout.of(2, 1);
        Path out = dir.resolve("ec");
        Files.createDirectories(out);
        EcWriter.Result result = EcWriter.write(dat, idx, new EcFiles(out, "", 7), layout, IndexFormat.OFFSET4, 1);
        long datSize = Files.size(dat);
        assertEquals(1, layout.largeRows(datSize));
        assertEquals(GIB + layout.smallRows(datSize) * MIB, result.shardSize());
        assertEquals(4, compare(out, dat));
        Files.delete(new EcFiles(out, "", 7).shard(0));
        assertEquals(4, compare(out, dat), "shard 0 rebuilt from shard 1 and the parity");
    }

    private static int compare(Path out, Path datPath) throws IOException {
        int n = 0;
        try (EcVolume ec = EcVolume.open(new EcFiles(out, "", 7), IndexFormat.OFFSET4);
             Volume dat = Volume.open(VolumeFiles.of(datPath), IndexFormat.OFFSET4)) {
            for (long key = 1; key <= 4; key++) {
                EcIndex.Entry entry = ec.lookup(key);
                assertEquals(dat.readRecord(entry.offset(), entry.size()), ec.readRecord(entry.offset(), entry.size()));
                assertTrue(dat.read(key, 0x1234, 0).isPresent());
                n++;
            }
        }
        return n;
    }

    private static NewNeedle needle(long key, int size, Random random) {
        byte[] data = new byte[size];
        random.nextBytes(data);
        return NewNeedle.builder(key, 0x1234, data).build();
    }
}
