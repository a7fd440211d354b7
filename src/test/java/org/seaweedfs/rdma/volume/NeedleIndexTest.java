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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.seaweedfs.rdma.volume.NeedleIndex.Readers.ANY_THREAD;
import static org.seaweedfs.rdma.volume.NeedleIndex.Readers.WRITER_THREAD;

class NeedleIndexTest {

    private static final SortedNeedleIndex.Stamp STAMP = new SortedNeedleIndex.Stamp(160, 7, 2, 16);

    @TempDir
    Path dir;

    @Test
    void agreesWithAHashMapThroughAppendsOverwritesDeletesAndMerges() throws IOException {
        Random r = new Random(11);
        Map<Long, long[]> reference = new HashMap<>();
        NeedleRecords idx = new NeedleRecords(dir, 50_000);
        for (int i = 0; i < 50_000; i++) {
            randomEntry(r, reference, (key, offset, size) -> idx.add(key, offset / 8, size));
        }
        NeedleIndex index = NeedleIndex.build(dir.resolve("1.rdx"), idx, STAMP, 1000, WRITER_THREAD);
        idx.close();
        assertMatches(reference, index);
        int merges = 0;
        for (int i = 0; i < 60_000; i++) {
            randomEntry(r, reference, (key, offset, size) -> apply(index, key, offset, size));
            if (index.mergeDue()) {
                index.merge(new SortedNeedleIndex.Stamp(i, i, 0, 17));
                merges++;
            }
        }
        assertTrue(merges > 2, "merged " + merges + " times");
        assertMatches(reference, index);
        index.merge(new SortedNeedleIndex.Stamp(60_000, 60_000, 0, 17));
        assertEquals(new SortedNeedleIndex.Stamp(index.stamp().idxCovered(), (int) index.stamp().idxCovered(), 0, 17),
                index.stamp());
        index.close();

        SortedNeedleIndex reopened = SortedNeedleIndex.open(dir.resolve("1.rdx"));
        NeedleIndex again = NeedleIndex.of(dir.resolve("1.rdx"), reopened, 1000, WRITER_THREAD);
        for (int i = 0; i < 500; i++) { // the entries since the last merge, as a restart replays them
            randomEntry(r, reference, (key, offset, size) -> apply(again, key, offset, size));
        }
        assertMatches(reference, again); // entry by entry: the reopened file and what was replayed over it
        again.close();
        Path file = dir.resolve("1.rdx");
        try (NeedleIndex last = NeedleIndex.of(file, SortedNeedleIndex.open(file), 10, WRITER_THREAD)) {
            assertFalse(last.find(-5, new NeedleIndex.Hit()));
        }
    }

    /** A random .idx entry over a small key space (overwrites and deletions are frequent), applied to reference too. */
    private static void randomEntry(Random r, Map<Long, long[]> reference, NeedleEntryConsumer to) {
        long key = r.nextInt(5) == 0 ? r.nextLong() : r.nextInt(20_000);
        if (r.nextInt(4) == 0) {
            reference.remove(key);
            to.accept(key, 0, IndexFormat.TOMBSTONE_SIZE);
        } else {
            long offset = ((r.nextLong() & ((1L << 40) - 1)) | 1) * 8; // 5-byte offsets, never 0
            int size = r.nextInt(3) == 0 ? 0 : r.nextInt(Integer.MAX_VALUE);
            reference.put(key, new long[]{offset, size});
            to.accept(key, offset, size);
        }
    }

    private static void apply(NeedleIndex index, long key, long offset, int size) {
        try {
            index.apply(key, offset, size);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void assertMatches(Map<Long, long[]> reference, NeedleIndex index) {
        assertEquals(reference.size(), index.size());
        NeedleIndex.Hit hit = new NeedleIndex.Hit();
        for (Map.Entry<Long, long[]> e : reference.entrySet()) {
            assertTrue(index.find(e.getKey(), hit), "key " + e.getKey());
            assertEquals(e.getValue()[0], hit.offset(), "offset of " + e.getKey());
            assertEquals(e.getValue()[1], hit.size(), "size of " + e.getKey());
        }
        for (long key = 20_000; key < 21_000; key++) {
            assertFalse(index.find(key, hit));
        }
    }

    @Test
    void sequentialKeysAndSmallSizesPackNarrowly() throws IOException {
        NeedleRecords idx = new NeedleRecords(dir, 100_000);
        for (int i = 0; i < 100_000; i++) {
            idx.add(1_000_000 + 3L * i, 1 + i * 12L, 40);
        }
        try (NeedleIndex index = NeedleIndex.build(dir.resolve("2.rdx"), idx, STAMP, 1000, WRITER_THREAD);
             SortedNeedleIndex file = SortedNeedleIndex.open(dir.resolve("2.rdx"))) {
            assertTrue(file.entryBytes() <= 4, "entry bytes " + file.entryBytes());
            assertEquals(100_000, index.size());
            NeedleIndex.Hit hit = new NeedleIndex.Hit();
            assertTrue(index.find(1_000_000 + 3L * 777, hit));
            assertEquals((1 + 777 * 12L) * 8, hit.offset());
            assertFalse(index.find(1_000_000 + 3L * 777 + 1, hit));
            assertFalse(index.find(999_999, hit));
        }
        idx.close();
    }

    @Test
    void anEmptyIndexAndExtremeKeysWork() throws IOException {
        NeedleRecords idx = new NeedleRecords(dir, 4);
        idx.add(0, 1, 0);
        idx.add(-1L, (1L << 40) - 1, Integer.MAX_VALUE);
        idx.add(5, 2, 3);
        idx.add(5, 0, -1);
        try (NeedleIndex index = NeedleIndex.build(dir.resolve("3.rdx"), idx, STAMP, 10, WRITER_THREAD)) {
            NeedleIndex.Hit hit = new NeedleIndex.Hit();
            assertEquals(2, index.size());
            assertTrue(index.find(-1L, hit));
            assertEquals(((1L << 40) - 1) * 8, hit.offset());
            assertEquals(Integer.MAX_VALUE, hit.size());
            assertTrue(index.find(0, hit));
            assertEquals(0, hit.size());
            assertFalse(index.find(5, hit));
        }
        idx.close();
        NeedleRecords none = new NeedleRecords(dir, 0);
        try (NeedleIndex empty = NeedleIndex.build(dir.resolve("4.rdx"), none, STAMP, 10, WRITER_THREAD)) {
            assertEquals(0, empty.size());
            assertFalse(empty.find(0, new NeedleIndex.Hit()));
        }
        none.close();
    }

    @Test
    void aCorruptOrTruncatedFileIsRefused() throws IOException {
        NeedleRecords idx = new NeedleRecords(dir, 1000);
        for (int i = 0; i < 1000; i++) {
            idx.add(i * 7L, i + 1, i);
        }
        Path file = dir.resolve("5.rdx");
        NeedleIndex.build(file, idx, STAMP, 10, WRITER_THREAD).close();
        idx.close();
        assertEquals(STAMP, SortedNeedleIndex.open(file).stamp());
        byte[] good = Files.readAllBytes(file);

        for (int at : new int[]{3, 50, 130, good.length / 2, good.length - 70}) {
            byte[] bad = good.clone();
            bad[at] ^= 0x10;
            Files.write(file, bad);
            assertThrows(VolumeFormatException.class, () -> SortedNeedleIndex.open(file), "flipped byte " + at);
        }
        Files.write(file, java.util.Arrays.copyOf(good, good.length - 1));
        assertThrows(VolumeFormatException.class, () -> SortedNeedleIndex.open(file));
        Files.write(file, new byte[10]);
        assertThrows(VolumeFormatException.class, () -> SortedNeedleIndex.open(file));
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(ByteBuffer.wrap(good, 0, good.length - 100));
        }
        assertThrows(VolumeFormatException.class, () -> SortedNeedleIndex.open(file));
    }

    /**
     * One writer appends, overwrites and deletes (with merges) while readers look up: a reader must only ever see
     * a location some entry of that key had, never a mix of two entries (offset of one, size of another), and a
     * needle that is never changed must always be found.
     */
    @Test
    void readersOnOtherThreadsSeeWholeEntriesWhileTheWriterAppliesAndMerges() throws Exception {
        NeedleRecords idx = new NeedleRecords(dir, 10_000);
        for (long key = 0; key < 10_000; key++) {
            idx.add(key, unitsOf(key, 0), sizeOf(key, 0));
        }
        NeedleIndex index = NeedleIndex.build(dir.resolve("6.rdx"), idx, STAMP, 2000, ANY_THREAD);
        idx.close();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong lookups = new AtomicLong();
        List<Thread> readers = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            int seed = t;
            Thread reader = new Thread(() -> {
                Random r = new Random(seed);
                NeedleIndex.Hit hit = new NeedleIndex.Hit();
                try {
                    while (!stop.get()) {
                        long key = r.nextInt(30_000);
                        boolean found = index.find(key, hit);
                        if (key % 10 == 0 && key < 10_000) {
                            assertTrue(found, "stable needle " + key + " vanished");
                        }
                        if (found) { // offset and size must come from the same version of the entry
                            long version = hit.offset() / 8 - key * 1000 - 1;
                            assertTrue(version >= 0 && version < 1000, "offset of key " + key + ": " + hit.offset());
                            assertEquals(sizeOf(key, (int) version), hit.size(), "key " + key);
                        }
                        lookups.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            reader.start();
            readers.add(reader);
        }
        Random r = new Random(99);
        int merges = 0;
        for (int i = 0; i < 300_000 && failure.get() == null; i++) {
            long key = r.nextInt(30_000);
            if (key % 10 == 0 && key < 10_000) {
                continue;
            }
            int version = r.nextInt(1000);
            if (r.nextInt(5) == 0) {
                index.apply(key, 0, IndexFormat.TOMBSTONE_SIZE);
            } else {
                index.apply(key, unitsOf(key, version) * 8, sizeOf(key, version));
            }
            if (index.mergeDue()) {
                index.merge(STAMP);
                merges++;
            }
        }
        stop.set(true);
        for (Thread reader : readers) {
            reader.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertTrue(merges > 0);
        assertTrue(lookups.get() > 0);
        index.close();
    }

    private static long unitsOf(long key, int version) {
        return key * 1000 + version + 1;
    }

    private static int sizeOf(long key, int version) {
        return (int) (key * 31 + version * 7);
    }
}
