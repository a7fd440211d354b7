package org.seaweedfs.rdma.volume;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NeedleMapTest {

    @TempDir
    Path dir;

    @Test
    void agreesWithAHashMapUnderRandomPutsAndRemoves() {
        Random r = new Random(3);
        NeedleMap map = new NeedleMap(0);
        Map<Long, long[]> reference = new HashMap<>();
        for (int i = 0; i < 200_000; i++) {
            // A small key space makes collisions, overwrites and backward shifts frequent.
            long key = r.nextInt(4) == 0 ? r.nextLong() : r.nextInt(5000);
            if (r.nextInt(3) == 0) {
                assertEquals(reference.remove(key) != null, map.remove(key));
            } else {
                long offset = (r.nextLong() & NeedleMap.MAX_OFFSET) & ~7L;
                int size = r.nextInt(Integer.MAX_VALUE);
                map.put(key, offset, size);
                reference.put(key, new long[]{offset, size});
            }
        }
        assertEquals(reference.size(), map.size());
        for (Map.Entry<Long, long[]> e : reference.entrySet()) {
            assertEquals(e.getValue()[0], map.offsetOf(e.getKey()));
            assertEquals(e.getValue()[1], map.sizeOf(e.getKey()));
        }
        int[] visited = {0};
        map.forEach((key, offset, size) -> {
            assertEquals(reference.get(key)[0], offset);
            visited[0]++;
        });
        assertEquals(reference.size(), visited[0]);
        assertEquals(-1, map.offsetOf(123_456_789_000L));
        assertEquals(-1, map.sizeOf(123_456_789_000L));
    }

    @Test
    void keyZeroAndExtremeValuesAreOrdinaryEntries() {
        NeedleMap map = new NeedleMap();
        map.put(0, 8, 0);
        map.put(-1L, NeedleMap.MAX_OFFSET, Integer.MAX_VALUE);
        assertEquals(8, map.offsetOf(0));
        assertEquals(0, map.sizeOf(0), "size 0 is live");
        assertEquals(NeedleMap.MAX_OFFSET, map.offsetOf(-1L));
        assertEquals(Integer.MAX_VALUE, map.sizeOf(-1L));
        assertThrows(IllegalArgumentException.class, () -> map.put(1, 12, 1), "unaligned");
        assertThrows(IllegalArgumentException.class, () -> map.put(1, NeedleMap.MAX_OFFSET + 8, 1));
        assertThrows(IllegalArgumentException.class, () -> map.put(1, 8, -1));
    }

    @Test
    void replayRuleDeletesOnOffsetZeroAndNegativeSizes() {
        NeedleMap map = new NeedleMap();
        assertTrue(map.apply(1, 8, 10));
        assertTrue(map.apply(2, 16, 0), "size 0 is live");
        assertTrue(map.apply(3, 24, 5));
        assertTrue(map.apply(4, 32, 5));
        assertFalse(map.apply(1, 0, 10), "offset 0 deletes");
        assertFalse(map.apply(3, 40, IndexFormat.TOMBSTONE_SIZE));
        assertFalse(map.apply(4, 48, 0x8000_0000), "negative as i32 deletes");
        assertEquals(1, map.size());
        assertTrue(map.contains(2));
    }

    @Test
    void followsAGrowingIndexAndWaitsForAPartialEntry() throws IOException {
        Path idx = dir.resolve("1.idx");
        NeedleMap map = new NeedleMap();
        IndexReplay replay = new IndexReplay(IndexFormat.OFFSET4);
        List<long[]> applied = new ArrayList<>();
        NeedleEntryConsumer record = (key, offset, size) -> applied.add(new long[]{key, offset, size});
        try (FileChannel out =
                FileChannel.open(idx, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
             FileChannel in = FileChannel.open(idx, StandardOpenOption.READ)) {
            out.write(entries(IndexFormat.OFFSET4, 1, 8, 100, 2, 128, 50));
            ByteBuffer third = entries(IndexFormat.OFFSET4, 1, 256, IndexFormat.TOMBSTONE_SIZE);
            out.write(third.limit(7));
            IndexProgress p = replay.apply(in, 0, map, record, "1.idx");
            assertEquals(32, p.position());
            assertEquals(2, p.entries());
            assertEquals(2, map.size());
            out.write(third.limit(16));
            p = replay.apply(in, p.position(), map, record, "1.idx");
            assertEquals(48, p.position());
            assertEquals(1, p.entries());
            assertEquals(1, map.size());
            assertEquals(-1, map.offsetOf(1));
            assertEquals(3, applied.size());
            assertEquals(NeedleMap.DELETED, applied.get(2)[2]);
            assertEquals(256, applied.get(2)[1]);
            assertEquals(0, replay.apply(in, 48, map, record, "1.idx").entries());
            assertThrows(IllegalArgumentException.class, () -> replay.apply(in, 5, map, null, "1.idx"));
            out.truncate(16);
            VolumeFormatException shrunk =
                    assertThrows(VolumeFormatException.class, () -> replay.apply(in, 48, map, null, "1.idx"));
            assertTrue(shrunk.getMessage().contains("1.idx at offset 48"), shrunk.getMessage());
        }
    }

    @Test
    void fiveByteOffsetsBeyond32GiBRoundTripThroughIndexWriterAndReplay() throws IOException {
        Path idx = dir.resolve("7.idx");
        long beyond = 32L << 30; // 32 GiB: the first offset a 4-byte index cannot hold
        long[] offsets = {8, beyond - 8, beyond, beyond + 8 * 12345, NeedleMap.MAX_OFFSET};
        try (IndexWriter w = new IndexWriter(idx, IndexFormat.OFFSET5)) {
            for (int i = 0; i < offsets.length; i++) {
                w.append(i + 1, offsets[i], 1000 + i);
            }
            w.append(2, beyond + 64, IndexFormat.TOMBSTONE_SIZE);
        }
        assertEquals(6 * 17, Files.size(idx));
        byte[] raw = Files.readAllBytes(idx);
        // entry 3 (offset 32 GiB = 2^32 units): low u32 0, high byte 1
        assertEquals(1, raw[2 * 17 + 12]);
        NeedleMap map = new NeedleMap();
        new IndexReplay(IndexFormat.OFFSET5).load(idx, map);
        assertEquals(offsets.length - 1, map.size());
        assertEquals(-1, map.offsetOf(2));
        for (int i = 0; i < offsets.length; i++) {
            if (i != 1) {
                assertEquals(offsets[i], map.offsetOf(i + 1));
                assertEquals(1000 + i, map.sizeOf(i + 1));
            }
        }
        LiveNeedles ordered = LiveNeedles.inOffsetOrder(map);
        for (int i = 1; i < ordered.count(); i++) {
            assertTrue(ordered.offset(i - 1) < ordered.offset(i));
        }
        assertThrows(IllegalArgumentException.class,
                () -> IndexFormat.OFFSET4.put(ByteBuffer.allocate(16), 1, beyond, 1));
    }

    @Test
    void indexWriterCutsATornTailBeforeAppending() throws IOException {
        Path idx = dir.resolve("8.idx");
        Files.write(idx, new byte[16 + 5]);
        try (IndexWriter w = new IndexWriter(idx, IndexFormat.OFFSET4)) {
            w.append(9, 8, 1);
        }
        assertEquals(32, Files.size(idx));
    }

    @Test
    void liveNeedlesSortsManyOffsets() {
        Random r = new Random(5);
        NeedleMap map = new NeedleMap();
        for (int i = 0; i < 50_000; i++) {
            map.put(i, (long) r.nextInt(1 << 28) * 8, i);
        }
        LiveNeedles live = LiveNeedles.inOffsetOrder(map);
        assertEquals(map.size(), live.count());
        for (int i = 0; i < live.count(); i++) {
            assertEquals(map.offsetOf(live.key(i)), live.offset(i), "keys travel with their offsets");
            if (i > 0) {
                assertTrue(live.offset(i - 1) <= live.offset(i));
            }
        }
    }

    static ByteBuffer entries(IndexFormat format, long... keyOffsetSize) {
        ByteBuffer b = ByteBuffer.allocate(keyOffsetSize.length / 3 * format.entrySize());
        for (int i = 0; i < keyOffsetSize.length; i += 3) {
            format.put(b, keyOffsetSize[i], keyOffsetSize[i + 1], (int) keyOffsetSize[i + 2]);
        }
        return b.flip();
    }
}
