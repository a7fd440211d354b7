package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.testing.AgentSetup;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
 * Entries of the exposed index that point at the wrong bytes (corrupt memory, a torn read) never make a sidecar
 * serve wrong bytes: the record they point at does not check, and the read is looked up at the agent instead.
 */
class CorruptExposedIndexTest {

    private static final String TLS = "sm,tcp,self";
    private static final long VOLUME = 3;

    @TempDir
    Path dir;

    @Test
    void everyCorruptEntryIsCaughtByItsRecordAndLookedUp() throws Exception {
        List<byte[]> data = new ArrayList<>();
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
            // Every entry's offset moves by one 8-byte unit: each now points into the middle of some record.
            int corrupted = onAgent(agent, () -> {
                ExposedIndex index = exposed(agent);
                IndexLayout layout = index.layout();
                ByteBuffer bytes = index.bytes();
                for (long i = 0; i < layout.count(); i++) {
                    int at = (int) (layout.entriesAt() + i * layout.entryBytes() + (layout.keyBits() >>> 3));
                    bytes.put(at, (byte) (bytes.get(at) ^ (1 << (layout.keyBits() & 7))));
                }
                return (int) layout.count();
            });
            assertTrue(corrupted >= 100, corrupted + " entries in the file");
            LocationCache cache = new LocationCache(LocationCache.ENTRY_BYTES, new SimpleMeterRegistry());
            AgentConnection connection = await(AgentConnection.connect(sidecar.vertx, sidecar.ucx,
                    AgentConnection.Options.of("127.0.0.1", agent.port(), "test-sidecar", null), cache));
            NeedleReader reader = sidecar.reader(v -> AgentRoute.of(connection, v), ReadPathOptions.defaults());
            int[] next = {0};
            Await.until("the sidecar reads the exposed index", () -> {
                int key = next[0]++ % data.size() + 1;
                assertArrayEquals(data.get(key - 1), read(reader, key));
                return cache.fallbacks("record") > 0;
            });
            for (int key = 1; key <= data.size(); key++) {
                assertArrayEquals(data.get(key - 1), read(reader, key), "needle " + key);
            }
            assertTrue(cache.fallbacks("record") >= corrupted - 1, "record fallbacks " + cache.fallbacks("record"));
            assertTrue(cache.oneSidedLookups() == 0, "nothing served from a corrupt entry");
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
