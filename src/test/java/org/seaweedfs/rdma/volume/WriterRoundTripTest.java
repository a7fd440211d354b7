package org.seaweedfs.rdma.volume;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Volumes written by {@link VolumeWriter} read back through every reader. */
class WriterRoundTripTest {

    private static final long NOW = 1_700_000_000_000L;

    @TempDir
    Path dir;

    static NewNeedle randomNeedle(Random r, long key) {
        byte[] data = new byte[r.nextInt(8) == 0 ? 0 : r.nextInt(r.nextBoolean() ? 100 : 70_000) + 1];
        r.nextBytes(data);
        NewNeedle.Builder b = NewNeedle.builder(key, r.nextInt(), data)
                .compressed(r.nextBoolean())
                .chunkManifest(r.nextInt(5) == 0)
                .legacyChecksum(r.nextBoolean())
                .appendAtNs(NOW * 1_000_000 + r.nextInt(1000));
        if (r.nextBoolean()) b.name("file-" + key + (r.nextBoolean() ? ".txt" : "-ü\"\\"));
        if (r.nextBoolean()) b.mime(r.nextBoolean() ? "text/plain" : "application/octet-stream");
        if (r.nextBoolean()) b.lastModified((NOW / 1000) - r.nextInt(1000));
        if (r.nextInt(4) == 0) b.ttl(Ttl.of(r.nextInt(255) + 1, r.nextInt(6) + 1));
        if (r.nextBoolean()) b.pairs("{\"X-Key\":\"" + key + "\"}");
        return b.build();
    }

    @ParameterizedTest
    @CsvSource({"2, OFFSET4", "3, OFFSET4", "2, OFFSET5", "3, OFFSET5"})
    void randomNeedlesReadBack(int version, IndexFormat format) throws IOException {
        Random r = new Random(7 + version * 31L + format.ordinal());
        Map<Long, NewNeedle> live = new HashMap<>();
        try (VolumeWriter w = VolumeWriter.create(dir, "pics", 9, version, format)) {
            for (int i = 0; i < 300; i++) {
                long key = r.nextInt(200) + 1L;
                if (live.containsKey(key) && r.nextInt(4) == 0) {
                    w.delete(key, live.remove(key).cookie(), NOW);
                } else {
                    NewNeedle n = randomNeedle(r, key);
                    w.append(n);
                    live.put(key, n);
                }
            }
        }
        VolumeFiles files = VolumeFiles.of(dir.resolve("pics_9.dat"));
        assertEquals("pics", files.collection());
        assertEquals(300L * format.entrySize(), Files.size(files.idx()));
        try (Volume v = Volume.open(files, format)) {
            assertEquals(version, v.version());
            assertEquals(live.size(), v.map().size());
            ChannelNeedleReader streamed = new ChannelNeedleReader(1000);
            for (NewNeedle n : live.values()) {
                int slot = v.map().slotOf(n.key());
                NeedleSummary s = streamed.read(v.dat(), v.map().offsetAt(slot), v.dat().size(), version, "t");
                assertEquals(n.data().length, s.dataLength());
                assertEquals(NeedleChecksum.of(n.data()), s.crc());
                if (n.data().length == 0) {
                    assertEquals(0, v.map().sizeAt(slot), "empty data is a Size-0 record");
                    assertEquals(CrcState.EMPTY, s.crcState());
                    assertTrue(v.read(n.key(), n.cookie(), NOW).isEmpty(), "Size 0 reads as not found");
                    continue;
                }
                assertEquals(n.legacyChecksum() ? CrcState.LEGACY : CrcState.RAW, s.crcState());
                assertMeta(n, s.meta());
                NeedleRecord read = v.read(n.key(), n.cookie(), n.ttl().expires() ? 0 : NOW).orElseThrow();
                assertArrayEquals(n.data(), bytes(read.data()));
                assertMeta(n, read.meta());
                assertEquals(s.tail(), read.tail());
                assertEquals(version == 3 ? n.appendAtNs() : 0, read.tail().appendAtNs());
            }
        }
        // The writer's directory is also what a directory scan finds.
        assertEquals(1, VolumeDirectory.scan(dir).volumes().size());
    }

    private static void assertMeta(NewNeedle n, NeedleMeta m) {
        assertEquals(n.flags(), m.flags());
        assertEquals(n.name(), m.name());
        assertEquals(n.mime(), m.mime());
        assertEquals(n.lastModified(), m.lastModified());
        assertEquals(n.ttl(), m.ttl());
        assertEquals(n.pairs(), m.pairs());
        assertEquals(n.compressed(), m.isCompressed());
        assertEquals(n.chunkManifest(), m.isChunkManifest());
    }

    static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Test
    void everyFlagIsLaidOutAsSeaweedFsDoes() {
        NewNeedle n = NewNeedle.builder(0x1234, 0xCAFEBABE, new byte[]{9, 8, 7})
                .name("a.txt").mime("text/plain").lastModified(0x01_0203_0405L).ttl(Ttl.of(3, Ttl.DAY))
                .pairs("{}").compressed(true).chunkManifest(true).appendAtNs(99).build();
        ByteBuffer record = NeedleEncoder.encode(n, 3);
        // header 16, dataSize 4, data 3, flags 1, name 1+5, mime 1+10, lastModified 5, ttl 2, pairs 2+2
        long size = 4 + 3 + 1 + 6 + 11 + 5 + 2 + 4;
        assertEquals(size, record.getInt(12));
        assertEquals(0xBF, record.get(16 + 4 + 3) & 0xFF, "all seven flags");
        assertEquals(NeedleLayout.recordLength(size, 3), record.remaining());
        assertEquals(0, NeedleLayout.recordLength(size, 3) % 8);
        NeedleRecord parsed = NeedleRecord.parse(record, 0, 3, "t", 0);
        assertEquals(0x01_0203_0405L, parsed.meta().lastModified());
        assertEquals(99, parsed.tail().appendAtNs());
        assertEquals(CrcState.RAW, parsed.verify());
    }

    @Test
    void version1RecordsAreDataOnly() {
        byte[] data = "hello version one".getBytes();
        ByteBuffer record = NeedleEncoder.encode(NewNeedle.builder(5, 6, data).build(), 1);
        assertEquals(16 + data.length + 4 + NeedleLayout.padding(data.length, 1), record.remaining());
        NeedleRecord n = NeedleRecord.parse(record, 0, 1, "t", 0);
        assertArrayEquals(data, bytes(n.data()));
        assertEquals(NeedleMeta.NONE, n.meta());
        assertEquals(CrcState.RAW, n.verify());
        assertThrows(IllegalArgumentException.class,
                () -> NeedleEncoder.encode(NewNeedle.builder(5, 6, data).name("x").build(), 1));
    }

    @Test
    void appendingToAnExistingVolumeIsSeenByAFollowingReader() throws IOException {
        try (VolumeWriter w = VolumeWriter.create(dir, "", 4, 3, IndexFormat.OFFSET4)) {
            w.append(NewNeedle.builder(1, 11, new byte[]{1}).build());
        }
        VolumeFiles files = VolumeFiles.of(dir.resolve("4.dat"));
        try (Volume reader = Volume.open(files, IndexFormat.OFFSET4);
             VolumeWriter w = VolumeWriter.append(files.dat(), files.idx(), IndexFormat.OFFSET4)) {
            assertEquals(1, reader.map().size());
            w.append(NewNeedle.builder(2, 22, new byte[]{2, 2}).build());
            w.delete(1, 11, NOW);
            long[] seen = new long[3];
            IndexProgress p = reader.followIndex((key, offset, size) -> {
                seen[(int) key] = size;
            });
            assertEquals(2, p.entries());
            assertEquals(48, p.position());
            assertEquals(NeedleMap.DELETED, seen[1]);
            assertTrue(seen[2] > 0);
            assertTrue(reader.read(1, 11, NOW).isEmpty());
            assertArrayEquals(new byte[]{2, 2}, bytes(reader.read(2, 22, NOW).orElseThrow().data()));
            assertEquals(0, reader.followIndex(null).entries(), "nothing new");
        }
    }

    @Test
    void writerRejectsWhatCannotBeStored() throws IOException {
        assertThrows(IllegalArgumentException.class,
                () -> NewNeedle.builder(1, 1, new byte[1]).name("x".repeat(256)).build());
        assertThrows(IllegalArgumentException.class,
                () -> NewNeedle.builder(1, 1, new byte[1]).lastModified(1L << 40).build());
        assertThrows(IllegalArgumentException.class, () -> VolumeWriter.create(dir, "", 1, 1, IndexFormat.OFFSET4));
        try (VolumeWriter w = VolumeWriter.create(dir, "", 2, 2, IndexFormat.OFFSET4)) {
            w.append(NewNeedle.builder(1, 1, new byte[1]).build());
        }
        assertThrows(IOException.class, () -> VolumeWriter.create(dir, "", 2, 2, IndexFormat.OFFSET4),
                "never overwrites");
    }
}
