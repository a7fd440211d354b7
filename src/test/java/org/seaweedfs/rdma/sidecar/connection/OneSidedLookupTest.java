package org.seaweedfs.rdma.sidecar.connection;

import org.seaweedfs.rdma.testing.AgentSetup;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.agent.AgentVerticle;
import org.seaweedfs.rdma.protocol.ControlCodec;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.locations.LocationCache;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.sidecar.read.NeedleReader;
import org.seaweedfs.rdma.sidecar.read.ReadPathOptions;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.Await;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NeedleIndex;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.VolumeWriter;

/**
 * Misses resolved by reading the agent's exposed needle index one-sidedly, over real UCX: found needles are read
 * right without a lookup, and every change the volume server makes after the index was written (an append over a
 * key, a delete, a merge of the index, a compaction) is never served stale once the agent applied it; an agent of
 * the older protocol is read through lookups. The location cache holds nothing, so every read is a miss.
 */
class OneSidedLookupTest {

    private static final String TLS = "sm,tcp,self";
    private static final RegisteredBufferPool.Settings POOL = new RegisteredBufferPool.Settings(4096, 256, 1 << 20, 2);
    private static final long VOLUME = 6;

    @TempDir
    Path dir;

    private AgentHarness agent;
    private ReadPathHarness.SidecarSide sidecar;
    private LocationCache cache;
    private AgentConnection connection;
    private NeedleReader reader;

    @AfterEach
    void close() throws Exception {
        try (AgentHarness a = agent; ReadPathHarness.SidecarSide s = sidecar) {
            reader = null; // closing: the sidecar first, then the agent
        }
    }

    /** Volume 6 with needles of keys 1..n (cookie = key), random bytes; returns them by key - 1. */
    private List<byte[]> writeVolume(int n, long seed) throws IOException {
        List<byte[]> data = new ArrayList<>();
        try (VolumeWriter writer = VolumeWriter.create(dir, "", VOLUME, 3, IndexFormat.OFFSET4)) {
            appendNeedles(writer, 1, n, new Random(seed), data);
        }
        return data;
    }

    private static void appendNeedles(VolumeWriter writer, int firstKey, int n, Random random, List<byte[]> data)
            throws IOException {
        for (int key = firstKey; key < firstKey + n; key++) {
            byte[] bytes = new byte[20 + random.nextInt(100)];
            random.nextBytes(bytes);
            writer.append(NewNeedle.builder(key, key, bytes).appendAtNs(key).build());
            data.add(bytes);
        }
    }

    private VolumeWriter appendToVolume() throws IOException {
        return VolumeWriter.append(dir.resolve(VOLUME + ".dat"), dir.resolve(VOLUME + ".idx"), IndexFormat.OFFSET4);
    }

    private static FileId fid(long key) {
        return new FileId(VOLUME, key, (int) key);
    }

    private void start(UnaryOperator<AgentVerticle> before) {
        start(LocationCache.ENTRY_BYTES, before); // one entry: all miss
    }

    private void start(long cacheBytes, UnaryOperator<AgentVerticle> before) {
        agent = new AgentHarness(dir, AgentHarness.ucx(TLS), AgentSetup.DEFAULTS, before);
        sidecar = new ReadPathHarness.SidecarSide(TLS, POOL);
        cache = new LocationCache(cacheBytes, new SimpleMeterRegistry());
        connection = await(AgentConnection.connect(sidecar.vertx, sidecar.ucx,
                AgentConnection.Options.of("127.0.0.1", agent.port(), "test-sidecar", null), cache));
        reader = sidecar.reader(volumeId -> AgentRoute.of(connection, volumeId), ReadPathOptions.defaults());
    }

    private byte[] read(long key) {
        return ReadPathHarness.readBytes(reader, fid(key));
    }

    /** Reads needles (checking each) until one is found one-sidedly: the exposed index is loaded. */
    private void untilOneSided(List<byte[]> data) {
        int[] next = {0};
        Await.until("a read resolved one-sidedly", () -> {
            int i = next[0]++ % data.size();
            assertArrayEquals(data.get(i), read(i + 1));
            return cache.oneSidedLookups() > 0;
        });
    }

    /** Waits until the agent has pushed an index change of the volume (it applied the .idx entries before). */
    private void untilAgentApplied(long changesBefore) {
        Await.until("the agent applied the change", () -> connection.volume(VOLUME) != null
                && connection.volume(VOLUME).locations().changeCount() > changesBefore);
    }

    @Test
    void missesAreFoundInTheExposedIndexWithoutLookups() throws IOException {
        List<byte[]> data = writeVolume(200, 1);
        start(UnaryOperator.identity());
        untilOneSided(data);
        long lookups = cache.lookupsSentCount();
        long oneSided = cache.oneSidedLookups();
        long hits = cache.hits(); // the one-entry cache may hold the last needle read
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < data.size(); i++) {
                assertArrayEquals(data.get(i), read(i + 1), "needle " + (i + 1));
            }
        }
        // The agent applies the last 10 entries of an .idx after writing the index file (checked against their
        // records): they are in its overlay, not in the exposed file, and are looked up; nothing else is.
        String causes = LocationCache.FALLBACK_CAUSES.stream().map(c -> c + "=" + cache.fallbacks(c)).toList()
                .toString();
        assertEquals(2L * 10, cache.lookupsSentCount() - lookups, causes);
        assertEquals(2L * 10, cache.fallbacks("absent"), causes);
        assertEquals(2L * (data.size() - 10), cache.oneSidedLookups() - oneSided + cache.hits() - hits, causes);
        ReadFailure missing = assertThrows(ReadFailure.class, () -> await(reader.read(fid(5000))));
        assertEquals(ReadFailure.Kind.NOT_FOUND, missing.kind());
        assertEquals(2L * 10 + 1, cache.fallbacks("absent"), "a key the index lacks is asked for");
    }

    @Test
    void anAppendOverAKeyRacingItsReadsServesTheOldOrTheNewBytesThenOnlyTheNew() throws IOException {
        List<byte[]> data = writeVolume(50, 2);
        start(UnaryOperator.identity());
        untilOneSided(data);
        byte[] old = data.get(6);
        byte[] now = "the needle's second version".getBytes();
        long changes = connection.volume(VOLUME).locations().changeCount();
        try (VolumeWriter writer = appendToVolume()) {
            writer.append(NewNeedle.builder(7, 7, now).appendAtNs(1_000).build());
        }
        // Until the agent applies the entry either version may be served; never anything else.
        while (connection.volume(VOLUME).locations().changeCount() == changes) {
            byte[] got = read(7);
            assertTrue(Arrays.equals(old, got) || Arrays.equals(now, got), "neither version: " + got.length);
        }
        untilAgentApplied(changes);
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(now, read(7), "the index entry of the old record is withdrawn");
        }
        assertTrue(cache.fallbacks("absent") > 0);
        long oneSided = cache.oneSidedLookups();
        assertArrayEquals(data.get(8), read(9));
        assertEquals(oneSided + 1, cache.oneSidedLookups(), "the others are still found one-sidedly");
    }

    @Test
    void aDeletedNeedleIsNotFoundOnceTheAgentAppliedTheDelete() throws IOException {
        List<byte[]> data = writeVolume(50, 3);
        start(UnaryOperator.identity());
        untilOneSided(data);
        long changes = connection.volume(VOLUME).locations().changeCount();
        try (VolumeWriter writer = appendToVolume()) {
            writer.delete(11, 11, 1_000);
        }
        untilAgentApplied(changes);
        // The record stays in the .dat with its key, cookie and CRC: only the withdrawn entry keeps it unread.
        ReadFailure gone = assertThrows(ReadFailure.class, () -> await(reader.read(fid(11))));
        assertEquals(ReadFailure.Kind.NOT_FOUND, gone.kind());
        assertArrayEquals(data.get(11), read(12));
    }

    @Test
    void aMergedIndexIsExposedAgainAndNewNeedlesAreFoundInIt() throws IOException {
        List<byte[]> data = writeVolume(100, 4);
        start(UnaryOperator.identity());
        untilOneSided(data);
        int added = (int) NeedleIndex.DEFAULT_MIN_OVERLAY + 100; // past the overlay's bound: the agent merges
        try (VolumeWriter writer = appendToVolume()) {
            appendNeedles(writer, 101, added, new Random(5), data);
        }
        long before = cache.oneSidedLookups();
        long[] key = {100};
        // A key appended after the first index was written is only in a merged one, which the agent exposes anew.
        Await.until("a new needle found one-sidedly", () -> {
            key[0] = key[0] % data.size() + 1;
            byte[] got;
            try {
                got = read(key[0]);
            } catch (ReadFailure e) {
                // Until the agent follows the appended records it answers their keys 503 (ask again): not yet.
                if (key[0] > 100 && e.kind() == ReadFailure.Kind.UNAVAILABLE) {
                    return false;
                }
                throw e;
            }
            assertArrayEquals(data.get((int) key[0] - 1), got, "needle " + key[0]);
            return key[0] > 100 && cache.oneSidedLookups() > before;
        });
        long oneSided = cache.oneSidedLookups();
        long lookups = cache.lookupsSentCount();
        long hits = cache.hits();
        for (int k = 1; k <= 300; k++) {
            assertArrayEquals(data.get(k - 1), read(k), "needle " + k);
        }
        // The merged index holds every key: each is found in it (or is the one cached entry), none is looked up.
        assertEquals(lookups, cache.lookupsSentCount(), "no lookup once the merged index is read");
        assertEquals(300, cache.oneSidedLookups() - oneSided + cache.hits() - hits);
    }

    @Test
    void aCompactedVolumeIsReadThroughItsNewIndex() throws IOException {
        List<byte[]> before = writeVolume(40, 6);
        start(UnaryOperator.identity());
        untilOneSided(before);
        long oldEpoch = connection.volume(VOLUME).epoch();
        List<byte[]> after = new ArrayList<>(before);
        VolumeFiles.compact(dir, VOLUME, after, true, 7);
        Await.until("the new epoch listed",
                () -> connection.volume(VOLUME) != null && connection.volume(VOLUME).epoch() != oldEpoch);
        Await.until("the new epoch's index loaded", () -> connection.volume(VOLUME).locations().remoteIndex() != null);
        long oneSided = cache.oneSidedLookups();
        long lookups = cache.lookupsSentCount();
        long absent = cache.fallbacks("absent");
        long hits = cache.hits();
        for (int pass = 0; pass < 3; pass++) {
            for (int key = 1; key <= after.size(); key++) {
                assertArrayEquals(after.get(key - 1), read(key), "needle " + key + " after the compaction");
            }
        }
        // Keys 10..1 are the last entries of the new .idx (written in reverse), applied after its index was written:
        // only those are looked up; the other 30 of each pass are found in the new epoch's index (or the one entry).
        long looked = cache.lookupsSentCount() - lookups;
        assertTrue(looked <= 3 * 10, looked + " lookups");
        assertEquals(looked, cache.fallbacks("absent") - absent, "only needles the new index lacks are looked up");
        assertEquals(3L * after.size(), looked + cache.oneSidedLookups() - oneSided + cache.hits() - hits);
        assertTrue(cache.oneSidedLookups() - oneSided >= 3 * 30 - (cache.hits() - hits),
                "the new epoch's index is read one-sidedly: " + (cache.oneSidedLookups() - oneSided));
    }

    @Test
    void aNeedleFoundOneSidedIsCachedFromItsSecondReadThenHitsWithoutIndexReads() throws IOException {
        List<byte[]> data = writeVolume(300, 9);
        start(1 << 20, UnaryOperator.identity());
        int key = 0;
        while (cache.oneSidedLookups() == 0) { // each needle once: the first reads are looked up while it loads
            key++;
            assertTrue(key < 290, "the exposed index was never read");
            assertArrayEquals(data.get(key - 1), read(key));
        }
        VolumeLocations locations = connection.volume(VOLUME).locations();
        long fresh = key + 1;
        long cached = locations.cachedEntries();
        long hits = cache.hits();
        long lookups = cache.lookupsSentCount();

        assertArrayEquals(data.get(key), read(fresh));
        assertEquals(2, cache.oneSidedLookups(), "found in the exposed index");
        assertEquals(cached, locations.cachedEntries(), "a needle read once is not cached");
        assertArrayEquals(data.get(key), read(fresh));
        assertEquals(3, cache.oneSidedLookups(), "read one-sidedly again");
        assertEquals(cached + 1, locations.cachedEntries(), "cached from its second read");
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(data.get(key), read(fresh));
        }
        assertEquals(hits + 3, cache.hits(), "then found in the cache");
        assertEquals(3, cache.oneSidedLookups(), "without reading the index");
        assertEquals(lookups, cache.lookupsSentCount(), "nor asking the agent");

        long changes = locations.changeCount();
        try (VolumeWriter writer = appendToVolume()) {
            writer.delete(fresh, (int) fresh, 1_000);
        }
        untilAgentApplied(changes);
        ReadFailure gone = assertThrows(ReadFailure.class, () -> await(reader.read(fid(fresh))));
        assertEquals(ReadFailure.Kind.NOT_FOUND, gone.kind(), "the cached location was dropped with the delete");
    }

    @Test
    void anAgentOfVersion4IsReadOneSidedlyWithGetsNotItsFile() throws IOException {
        List<byte[]> data = writeVolume(60, 9);
        start(a -> a.speakProtocolAtMost(4));
        untilOneSided(data);
        assertEquals(4, connection.protocolVersion(), "stepped down to the agent's version, not to the oldest");
        assertEquals(null, connection.volume(VOLUME).info().file(), "version 4 does not tell the file");
        for (int i = 0; i < data.size(); i++) {
            assertArrayEquals(data.get(i), read(i + 1), "needle " + (i + 1));
        }
        assertEquals(0, sidecar.ucx.metrics().laneFileViews().sum(), "the file is not mapped: gets read it");
        assertTrue(agent.agent.metrics().indexRequests().sum() > 0, "the index is exposed in version 4");
    }

    @Test
    void aSameHostAgentsVolumeIsReadFromItsFileMappedHere() throws IOException {
        List<byte[]> data = writeVolume(60, 10);
        start(UnaryOperator.identity());
        untilOneSided(data);
        assertEquals(ControlCodec.PROTOCOL_VERSION, connection.protocolVersion());
        assertEquals(dir.resolve(VOLUME + ".dat").toAbsolutePath().toString(),
                connection.volume(VOLUME).info().file().path());
        for (int i = 0; i < data.size(); i++) {
            assertArrayEquals(data.get(i), read(i + 1), "needle " + (i + 1));
        }
        assertTrue(sidecar.ucx.metrics().laneFileViews().sum() >= data.size(), "each record read where it lies");
    }

    @Test
    void anAgentOfTheOlderProtocolIsReadThroughLookups() throws IOException {
        List<byte[]> data = writeVolume(60, 8);
        start(a -> a.speakProtocolAtMost(ControlCodec.MIN_PROTOCOL_VERSION));
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < data.size(); i++) {
                assertArrayEquals(data.get(i), read(i + 1), "needle " + (i + 1));
            }
        }
        assertEquals(0, cache.oneSidedLookups());
        assertEquals(2L * data.size(), cache.lookupsSentCount(), "every miss looked up");
        assertEquals(0, agent.agent.metrics().indexRequests().sum(), "no index asked of an older agent");
    }
}
