package org.seaweedfs.rdma.volume.ec;

import org.seaweedfs.rdma.volume.Fixtures;
import org.seaweedfs.rdma.volume.IndexFormat;

import org.seaweedfs.rdma.volume.IndexWriter;
import org.seaweedfs.rdma.volume.NeedleLayout;
import org.seaweedfs.rdma.volume.SuperBlock;
import org.seaweedfs.rdma.volume.Volume;
import org.seaweedfs.rdma.volume.VolumeFiles;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/** EC volumes written from SeaweedFS's own test volume (weed/storage/erasure_coding/1.dat, 1.idx). */
public final class EcTestVolumes {

    /** The block sizes SeaweedFS's ec_test.go uses. */
    public static final long TEST_LARGE_BLOCK = 10_000;
    public static final long TEST_SMALL_BLOCK = 100;
    public static final long ENCODE_TS_NS = 1_700_000_000_000_000_000L;

    private EcTestVolumes() {
    }

    public static Path fixtureDat() {
        return Fixtures.volumes().resolve("1.dat");
    }

    public static Path fixtureIdx() {
        return Fixtures.volumes().resolve("1.idx");
    }

    /** Encodes the fixture volume 1 into {@code dir} with the test block sizes. */
    public static EcWriter.Result encodeFixture(Path dir, int dataShards, int parityShards) throws IOException {
        return EcWriter.write(fixtureDat(), fixtureIdx(), new EcFiles(dir, "", 1),
                new EcLayout(dataShards, parityShards, TEST_LARGE_BLOCK, TEST_SMALL_BLOCK), IndexFormat.OFFSET4,
                        ENCODE_TS_NS);
    }

    /**
     * Writes {@code staging/1.dat} and {@code 1.idx}: the fixture volume 1 compacted without {@code removed}
     * (compaction revision + 1), as a vacuum leaves it before it is erasure-coded again.
     */
    public static void writeVacuumedFixture(Path staging, Collection<Long> removed) throws IOException {
        Files.createDirectories(staging);
        try (Volume source = Volume.open(VolumeFiles.of(fixtureDat()), IndexFormat.OFFSET4);
             FileChannel out = FileChannel.open(staging.resolve("1.dat"), StandardOpenOption.CREATE_NEW,
                     StandardOpenOption.WRITE);
             IndexWriter index = new IndexWriter(staging.resolve("1.idx"), IndexFormat.OFFSET4)) {
            SuperBlock old = source.superBlock();
            SuperBlock compacted = new SuperBlock(old.version(), old.replicaPlacement(), old.ttl(),
                    old.compactionRevision() + 1, old.extra().length == 0 ? null : old.extra());
            out.write(ByteBuffer.wrap(compacted.toBytes()));
            TreeMap<Long, long[]> byOffset = new TreeMap<>();
            source.map().forEach((key, offset, size) -> byOffset.put(offset, new long[] {key, size}));
            for (Map.Entry<Long, long[]> e : byOffset.entrySet()) {
                long key = e.getValue()[0];
                long size = e.getValue()[1];
                if (removed.contains(key)) {
                    continue;
                }
                long at = out.position();
                ByteBuffer record = ByteBuffer.allocate((int) NeedleLayout.recordLength(size, old.version()));
                source.dat().read(record, e.getKey());
                out.write(record.flip());
                index.append(key, at, (int) size);
            }
        }
    }

    /** Flips every byte of the file in place (the same file: mappings of it see the change). */
    public static void rot(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer bytes = ByteBuffer.allocate((int) ch.size());
            while (bytes.hasRemaining() && ch.read(bytes, bytes.position()) > 0) {
                // read it all
            }
            for (int i = 0; i < bytes.capacity(); i++) {
                bytes.put(i, (byte) ~bytes.get(i));
            }
            ch.write(bytes.flip(), 0);
        }
    }

    /**
     * Encodes the fixture volume 1 into {@code dir} with SeaweedFS's real block sizes (all small rows at this size).
     */
    public static EcWriter.Result encodeFixtureRealBlocks(Path dir, String collection, int dataShards, int parityShards)
            throws IOException {
        return EcWriter.write(fixtureDat(), fixtureIdx(), new EcFiles(dir, collection, 1),
                EcLayout.of(dataShards, parityShards), IndexFormat.OFFSET4, ENCODE_TS_NS);
    }
}
