package org.seaweedfs.rdma.sidecar.connection;

import org.seaweedfs.rdma.testing.AgentSetup;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.Await;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.sidecar.read.NeedleReader;
import org.seaweedfs.rdma.sidecar.read.ReadPathOptions;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.VolumeWriter;
import org.seaweedfs.rdma.sidecar.locations.LocationCache;

/**
 * The sidecar's bounded location cache against a real agent over real UCX: reads stay right when the budget holds
 * a few entries, across a compaction and after a delete; misses of one needle share a lookup, misses of many go out
 * in one frame.
 */
class LocationCacheAgentTest {

    private static final String TLS = "sm,tcp,self";
    private static final RegisteredBufferPool.Settings POOL = new RegisteredBufferPool.Settings(4096, 256, 1 << 20, 2);
    private static final long VOLUME = 5;

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();
    private AgentHarness agent;
    private ReadPathHarness.SidecarSide sidecar;
    private LocationCache cache;
    private AgentConnection connection;
    private NeedleReader reader;
    /** The connection's home: reads issued from it in one task are one turn of its event loop. */
    private Context home;

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /** Writes volume 5 with {@code n} needles (key i + 1, cookie i, 100..300 random bytes) and returns their data. */
    private List<byte[]> writeVolume(int n, long seed) throws IOException {
        Random random = new Random(seed);
        List<byte[]> data = new ArrayList<>();
        try (VolumeWriter writer = VolumeWriter.create(dir, "", VOLUME, 3, IndexFormat.OFFSET4)) {
            for (int i = 0; i < n; i++) {
                byte[] bytes = new byte[100 + random.nextInt(200)];
                random.nextBytes(bytes);
                writer.append(NewNeedle.builder(i + 1, i, bytes).appendAtNs(i + 1).build());
                data.add(bytes);
            }
        }
        return data;
    }

    private static FileId fid(int i) {
        return new FileId(VOLUME, i + 1, i);
    }

    private void start(long budgetBytes) {
        agent = new AgentHarness(dir, TLS, AgentSetup.DEFAULTS);
        open.add(agent);
        sidecar = new ReadPathHarness.SidecarSide(TLS, POOL);
        open.add(sidecar);
        cache = new LocationCache(budgetBytes, new SimpleMeterRegistry());
        home = sidecar.vertx.getOrCreateContext();
        connection = await(onHome(() -> AgentConnection.connect(sidecar.vertx, sidecar.ucx,
                AgentConnection.Options.of("127.0.0.1", agent.port(), "test-sidecar", null), cache)));
        reader = sidecar.reader(volumeId -> AgentRoute.of(connection, volumeId), ReadPathOptions.defaults());
    }

    /** Runs {@code work} as one task on the connection's home context. */
    private <T> Future<T> onHome(Supplier<Future<T>> work) {
        Promise<T> result = Promise.promise();
        home.runOnContext(v -> work.get().onComplete(result));
        return result.future();
    }

    private byte[] read(FileId fid) {
        return ReadPathHarness.readBytes(reader, fid);
    }

    /**
     * Reads every needle twice in a row, checking each: a location found in the agent's exposed index is cached from
     * its second read, a looked-up one from its first, so all are cached after.
     */
    private void readEachTwice(List<byte[]> data) {
        for (int i = 0; i < data.size(); i++) {
            for (int time = 0; time < 2; time++) {
                assertArrayEquals(data.get(i), read(fid(i)), "needle " + i);
            }
        }
    }

    /** Reads every listed needle at once, in one turn of the home event loop; all must equal their data. */
    private void readAllAtOnce(List<FileId> fids, List<byte[]> expected) {
        List<NeedleContent> contents = await(onHome(() -> {
            List<Future<NeedleContent>> reads = new ArrayList<>();
            fids.forEach(f -> reads.add(reader.read(f)));
            return Future.all(reads).map(all -> all.<NeedleContent>list());
        }));
        for (int i = 0; i < fids.size(); i++) {
            Buffer all = Buffer.buffer();
            contents.get(i).chunks().forEach(all::appendBuffer);
            contents.get(i).release();
            assertArrayEquals(expected.get(i), all.getBytes(), fids.get(i).toString());
        }
    }

    @Test
    void connectingFetchesNoNeedleMapAndAFullCacheNeedsNoLookup() throws IOException {
        List<byte[]> data = writeVolume(50, 1);
        start(LocationCache.DEFAULT_MAX_BYTES);
        assertEquals(0, connection.cachedLocations(), "nothing cached at connect");
        assertEquals(0, agent.agent.metrics().lookups().sum());
        Await.until("the exposed index loaded", () -> connection.volume(VOLUME).locations().remoteIndex() != null);
        for (int i = 0; i < data.size(); i++) {
            assertArrayEquals(data.get(i), read(fid(i)));
        }
        long lookups = agent.agent.metrics().lookups().sum();
        long oneSided = cache.oneSidedLookups();
        // The agent checks the last 10 .idx entries and applies them after writing the exposed index: those are
        // looked up, every other miss is read one-sidedly.
        assertEquals(10, lookups, "the misses the exposed index lacks are looked up");
        assertEquals(10, cache.fallbacks("absent"));
        assertEquals(data.size() - 10, oneSided, "every other miss is read one-sidedly");
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < data.size(); i++) {
                assertArrayEquals(data.get(i), read(fid(i)));
            }
        }
        assertEquals(lookups, agent.agent.metrics().lookups().sum(), "no needle is looked up again");
        assertEquals(2 * oneSided, cache.oneSidedLookups(), "one read one-sidedly is cached from its second read");
        assertEquals(data.size() - oneSided + data.size(), cache.hits(), "the third pass hits the cache");
        assertEquals(data.size(), connection.cachedLocations());
    }

    @Test
    void aTinyBudgetEvictsAndReadsStayRight() throws IOException {
        List<byte[]> data = writeVolume(300, 2);
        int room = 20;
        start((long) room * LocationCache.ENTRY_BYTES);
        for (int pass = 0; pass < 3; pass++) {
            readEachTwice(data);
        }
        cache.cleanUp();
        assertTrue(cache.evictions() >= data.size() - room, "evictions " + cache.evictions());
        assertTrue(cache.size() <= room, "entries " + cache.size());
        assertTrue(cache.usedBytes() <= cache.maxBytes(), cache.usedBytes() + " bytes used");
    }

    @Test
    void concurrentMissesOfOneNeedleShareOneLookup() throws IOException {
        List<byte[]> data = writeVolume(10, 3);
        start(LocationCache.DEFAULT_MAX_BYTES);
        List<FileId> same = new ArrayList<>();
        List<byte[]> expected = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            same.add(fid(7));
            expected.add(data.get(7));
        }
        readAllAtOnce(same, expected);
        assertEquals(1, agent.agent.metrics().lookups().sum(), "one lookup for 40 concurrent misses");
        assertEquals(39, cache.sharedLookups());
        assertEquals(1, cache.lookupsSent());
    }

    @Test
    void manyMissesGoOutInOneFrame() throws IOException {
        List<byte[]> data = writeVolume(200, 4);
        start(LocationCache.DEFAULT_MAX_BYTES);
        List<FileId> all = new ArrayList<>();
        for (int i = 0; i < data.size(); i++) {
            all.add(fid(i));
        }
        readAllAtOnce(all, data);
        assertEquals(1, agent.agent.metrics().lookupBatches().sum(), "200 misses in one turn: one LookupBatch");
        assertEquals(200, agent.agent.metrics().lookups().sum());
        assertEquals(200, cache.lookupsSent());
    }

    @Test
    void aDeletedCachedNeedleAnswers404OnceTheAgentSeesTheDelete() throws IOException {
        List<byte[]> data = writeVolume(20, 5);
        start(LocationCache.DEFAULT_MAX_BYTES);
        readEachTwice(data);
        assertEquals(data.size(), connection.cachedLocations());
        try (VolumeWriter writer = VolumeWriter.append(dir.resolve(VOLUME + ".dat"), dir.resolve(VOLUME + ".idx"),
                IndexFormat.OFFSET4)) {
            writer.delete(fid(4).key(), fid(4).cookie(), 1_000);
        }
        // The record stays in the .dat (key, cookie and CRC would pass): only the index stream can retire it.
        Await.until("the deleted needle's location dropped", () -> connection.cachedLocations() == data.size() - 1);
        ReadFailure gone = assertThrows(ReadFailure.class, () -> await(reader.read(fid(4))));
        assertEquals(ReadFailure.Kind.NOT_FOUND, gone.kind());
        assertArrayEquals(data.get(5), read(fid(5)), "the others stay cached and right");
    }

    @Test
    void aCompactionWhileLocationsAreCachedServesTheNewRecords() throws IOException {
        List<byte[]> before = writeVolume(30, 6);
        start(LocationCache.DEFAULT_MAX_BYTES);
        readEachTwice(before);
        long oldEpoch = connection.volume(VOLUME).epoch();
        // The compacted volume holds the same keys in another order with other bytes: an old offset would read
        // another needle's record (refused as stale) and an old location could only serve the old bytes.
        List<byte[]> after = new ArrayList<>(before);
        VolumeFiles.compact(dir, VOLUME, after, false, 7);
        Await.until("the new epoch listed",
                () -> connection.volume(VOLUME) != null && connection.volume(VOLUME).epoch() != oldEpoch);
        assertNotEquals(oldEpoch, connection.volume(VOLUME).epoch());
        Await.until("the old epoch's locations swept from the cache", () -> cache.size() == 0);
        readEachTwice(after);
        assertEquals(after.size(), connection.cachedLocations());
    }
}
