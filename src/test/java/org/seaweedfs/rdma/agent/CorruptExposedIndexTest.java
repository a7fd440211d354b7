package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.testing.AgentSetup;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Promise;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.connection.AgentConnection;
import org.seaweedfs.rdma.sidecar.connection.AgentRoute;
import org.seaweedfs.rdma.sidecar.locations.LocationCache;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.sidecar.read.NeedleReader;
import org.seaweedfs.rdma.sidecar.read.ReadPathOptions;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.Await;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.IndexLayout;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.VolumeWriter;

/**
 * Entries of the exposed index that point at the wrong bytes (corrupt memory, a torn read), or a bucket directory
 * that does not check, never make a sidecar serve wrong bytes: the record they point at does not check, or the bucket
 * is refused, and the read is looked up at the agent instead (counted by cause).
 */
class CorruptExposedIndexTest {

    private static final String TLS = "sm,tcp,self";
    private static final long VOLUME = 3;
    /** The index file's header bytes; the bucket directory (the first entry of each bucket, 4 bytes) follows. */
    private static final int INDEX_HEADER = 128;

    @TempDir
    Path dir;

    private final List<byte[]> data = new ArrayList<>();

    @Test
    void everyCorruptEntryIsCaughtByItsRecordAndLookedUp() throws Exception {
        // Every entry's offset moves by one 8-byte unit: each now points into the middle of some record.
        readAllWithCorruptIndex("record", index -> {
            IndexLayout layout = index.layout();
            ByteBuffer bytes = index.bytes();
            for (long i = 0; i < layout.count(); i++) {
                int at = (int) (layout.entriesAt() + i * layout.entryBytes() + (layout.keyBits() >>> 3));
                bytes.put(at, (byte) (bytes.get(at) ^ (1 << (layout.keyBits() & 7))));
            }
            // Each moved entry is caught by its record; the last one's may point past the .dat (a re-listing instead).
            return (int) layout.count() - 1;
        });
    }

    @Test
    void aBucketDirectoryThatDoesNotCheckIsLookedUp() throws Exception {
        // Every bucket but the first starts past the last entry: each bucket ends before it starts or past the end.
        readAllWithCorruptIndex("bucket", index -> {
            IndexLayout layout = index.layout();
            for (long b = 1; b < layout.buckets(); b++) {
                index.bytes().putInt((int) (INDEX_HEADER + b * 4), -1);
            }
            return (int) layout.count(); // every key of the file; keys past its range are absent from it
        });
    }

    /**
     * Corrupts the agent's exposed index of a volume of 120 needles before the sidecar loads it ({@code corrupt}
     * returns how many reads must fall back for {@code cause} at least), then reads every needle: each is right, and
     * none is found one-sidedly.
     */
    private void readAllWithCorruptIndex(String cause, java.util.function.ToIntFunction<ExposedIndex> corrupt)
            throws Exception {
        Random random = new Random(11);
        try (VolumeWriter writer = VolumeWriter.create(dir, "", VOLUME, 3, IndexFormat.OFFSET4)) {
            for (int key = 1; key <= 120; key++) {
                byte[] bytes = new byte[40 + random.nextInt(80)];
                random.nextBytes(bytes);
                writer.append(NewNeedle.builder(key, key, bytes).appendAtNs(key).build());
                data.add(bytes);
            }
        }
        try (AgentHarness agent = new AgentHarness(dir, TLS, AgentSetup.DEFAULTS);
             ReadPathHarness.SidecarSide sidecar = new ReadPathHarness.SidecarSide(TLS,
                     new RegisteredBufferPool.Settings(4096, 64, 1 << 20, 2))) {
            Await.until("the index exposed", () -> onAgent(agent, () -> exposed(agent) != null));
            int caught = onAgent(agent, () -> corrupt.applyAsInt(exposed(agent)));
            assertTrue(caught >= 100, caught + " entries in the file");
            LocationCache cache = new LocationCache(LocationCache.ENTRY_BYTES, new SimpleMeterRegistry());
            AgentConnection connection = await(AgentConnection.connect(sidecar.vertx, sidecar.ucx,
                    AgentConnection.Options.of("127.0.0.1", agent.port(), "test-sidecar", null), cache));
            NeedleReader reader = sidecar.reader(v -> AgentRoute.of(connection, v), ReadPathOptions.defaults());
            Await.until("the sidecar loads the exposed index",
                    () -> connection.volume(VOLUME).locations().remoteIndex() != null);
            for (int key = 1; key <= data.size(); key++) {
                assertArrayEquals(data.get(key - 1), read(reader, key), "needle " + key);
            }
            String causes = LocationCache.FALLBACK_CAUSES.stream().map(c -> c + "=" + cache.fallbacks(c)).toList()
                    .toString();
            assertTrue(cache.fallbacks(cause) >= caught, causes);
            assertEquals(0, cache.oneSidedLookups(), "nothing served from a corrupt index");
        }
    }

    private static ExposedIndex exposed(AgentHarness agent) {
        ServedVolume volume = agent.agent.follower().volume(VOLUME);
        return volume == null ? null : volume.exposed();
    }

    /** Runs {@code work} on the agent's context, where its volumes are confined. */
    private static <T> T onAgent(AgentHarness agent, java.util.concurrent.Callable<T> work) {
        Promise<T> result = Promise.promise();
        agent.agent.agentContext().runOnContext(v -> {
            try {
                result.complete(work.call());
            } catch (Exception e) {
                result.fail(e);
            }
        });
        return await(result.future());
    }

    private static byte[] read(NeedleReader reader, long key) {
        return ReadPathHarness.readBytes(reader, new FileId(VOLUME, key, (int) key));
    }
}
