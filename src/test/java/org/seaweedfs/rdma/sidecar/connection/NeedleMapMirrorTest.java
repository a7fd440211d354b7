package org.seaweedfs.rdma.sidecar.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.protocol.SyncEntryReader;
import org.seaweedfs.rdma.protocol.SyncEntryWriter;

class NeedleMapMirrorTest {

    /** Offset the writer gives key k in round r: readers can tell a torn answer from a real one. */
    private static long offsetOf(long key, int round) {
        return (key * 1000 + round) * 8;
    }

    private static void apply(NeedleMapMirror mirror, long[] keys, long[] offsets, int[] sizes) {
        SyncEntryWriter writer = new SyncEntryWriter(keys.length);
        for (int i = 0; i < keys.length; i++) {
            writer.append(keys[i], offsets[i], sizes[i]);
        }
        byte[] packed = writer.toPacked();
        long from = mirror.position();
        mirror.apply(from, from + 16L * keys.length, new SyncEntryReader(packed), keys.length);
    }

    @Test
    void appliesLiveAndDeletedEntriesInOrder() {
        NeedleMapMirror mirror = new NeedleMapMirror(7, 42, 0);
        apply(mirror, new long[] {1, 2, 1, 3}, new long[] {8, 16, 24, 32}, new int[] {10, 20, 30, 0});
        assertEquals(new NeedleLocation(24, 30), mirror.find(1));
        assertEquals(new NeedleLocation(32, 0), mirror.find(3));
        apply(mirror, new long[] {2}, new long[] {40}, new int[] {-1});
        assertNull(mirror.find(2));
        assertEquals(2, mirror.size());
        assertEquals(5 * 16, mirror.position());
        assertEquals(42, mirror.epoch());
    }

    @Test
    void refusesEntriesThatDoNotContinueIt() {
        NeedleMapMirror mirror = new NeedleMapMirror(7, 1, 0);
        SyncEntryReader none = new SyncEntryReader(new byte[0]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> mirror.apply(16, 32, none, 0));
        assertTrue(e.getMessage().contains("do not continue"), e.getMessage());
    }

    @Test
    void refusesToBeWrittenOnAnEventLoop() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            NeedleMapMirror mirror = new NeedleMapMirror(7, 1, 0);
            CompletableFuture<Throwable> thrown = new CompletableFuture<>();
            vertx.runOnContext(v -> {
                try {
                    apply(mirror, new long[] {1}, new long[] {8}, new int[] {10});
                    thrown.complete(null);
                } catch (Throwable t) {
                    thrown.complete(t);
                }
            });
            Throwable t = thrown.get(10, TimeUnit.SECONDS);
            assertTrue(t instanceof IllegalStateException, String.valueOf(t));
            assertEquals(0, mirror.position());
            assertNull(mirror.find(1));
        } finally {
            vertx.close().await(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void readersNeverSeeATornEntryWhileOneWriterGrowsAndRewritesTheMap() throws Exception {
        NeedleMapMirror mirror = new NeedleMapMirror(1, 1, 0); // starts small: many swaps to larger copies
        int keys = 200_000;
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicReference<String> wrong = new AtomicReference<>();
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            long seed = r;
            Thread reader = new Thread(() -> {
                long k = seed;
                long checked = 0;
                while (writing.get() || checked < 100_000) {
                    k = (k * 6364136223846793005L + 1442695040888963407L);
                    long key = 1 + Math.floorMod(k, keys);
                    NeedleLocation at = mirror.find(key);
                    checked++;
                    if (at != null) {
                        long round = at.offset() / 8 - key * 1000;
                        if (round < 0 || round > 2 || at.size() != key % 1000 + 1) {
                            wrong.compareAndSet(null, "key " + key + " -> " + at);
                        }
                    }
                }
            });
            readers.add(reader);
            reader.start();
        }
        int batch = 5000;
        for (int round = 0; round < 3; round++) {
            for (int start = 1; start <= keys; start += batch) {
                int n = Math.min(batch, keys - start + 1);
                long[] ks = new long[n];
                long[] offsets = new long[n];
                int[] sizes = new int[n];
                for (int i = 0; i < n; i++) {
                    ks[i] = start + i;
                    boolean delete = round == 1 && ks[i] % 3 == 0;
                    offsets[i] = delete ? 0 : offsetOf(ks[i], round);
                    sizes[i] = delete ? -1 : (int) (ks[i] % 1000 + 1);
                }
                apply(mirror, ks, offsets, sizes);
            }
        }
        writing.set(false);
        for (Thread reader : readers) {
            reader.join();
        }
        assertNull(wrong.get(), wrong.get());
        assertEquals(keys, mirror.size());
        for (long key = 1; key <= keys; key++) {
            assertEquals(new NeedleLocation(offsetOf(key, 2), key % 1000 + 1), mirror.find(key));
        }
    }
}
