package org.seaweedfs.rdma.sidecar.batch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.StaticAgentRouter;
import org.seaweedfs.rdma.sidecar.connection.AgentConnection;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.sidecar.read.NeedleReader;
import org.seaweedfs.rdma.sidecar.read.ReadCounters;
import org.seaweedfs.rdma.sidecar.read.ReadPathOptions;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.AgentSetup;
import org.seaweedfs.rdma.ucx.UcxMetrics;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.VolumeWriter;

/**
 * The reads of one many-needles call against a real agent over UCX: issued in one pass on the caller's event loop,
 * every location a miss, each needle verified, results in request order; the read path's
 * counters show how the misses were resolved.
 */
class ManyReadsAgentTest {

    private static final String TLS = "sm,tcp,self";
    private static final RegisteredBufferPool.Settings POOL =
            new RegisteredBufferPool.Settings(64 << 10, 128, 1 << 20, 4);
    private static final int COUNT = 100;

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    @Test
    void manyColdReadsComeBackInOrderWithTheirMissesResolvedTogether() throws Exception {
        List<byte[]> data = new ArrayList<>();
        List<FileId> fids = new ArrayList<>();
        Random random = new Random(5);
        try (VolumeWriter writer = VolumeWriter.create(dir, "", 4, 3, IndexFormat.of(false))) {
            for (int i = 0; i < COUNT; i++) {
                byte[] d = new byte[100 + random.nextInt(8000)];
                random.nextBytes(d);
                writer.append(NewNeedle.builder(i + 1, 0x40 + i, d).build());
                data.add(d);
                fids.add(new FileId(4, i + 1, 0x40 + i));
            }
        }
        AgentHarness agent = new AgentHarness(dir, TLS, AgentSetup.DEFAULTS);
        open.add(agent);
        ReadPathHarness.SidecarSide sidecar = new ReadPathHarness.SidecarSide(TLS, POOL);
        open.add(sidecar);
        AgentConnection connection = sidecar.connect(agent.port(), null);
        NeedleReader reader = sidecar.reader(new StaticAgentRouter(connection), ReadPathOptions.defaults());
        ReadCounters counters = reader.counters();
        UcxMetrics ucx = sidecar.ucx.metrics();
        long lookups = counters.lookups();
        long oneSided = counters.oneSided();
        long frames = ucx.framesSent().sum();
        long gets = ucx.gets().sum() + ucx.laneFileViews().sum();
        int window = COUNT;
        Context context = sidecar.vertx.getOrCreateContext();
        Promise<List<byte[]>> result = Promise.promise();
        context.runOnContext(v -> ManyReads.collect(COUNT, window, i -> reader.read(fids.get(i)), (i, ar) -> {
            Buffer all = Buffer.buffer();
            ar.result().chunks().forEach(all::appendBuffer);
            ar.result().release();
            return all.getBytes();
        }).onComplete(result));
        List<byte[]> got = await(result.future());
        for (int i = 0; i < COUNT; i++) {
            assertArrayEquals(data.get(i), got.get(i), fids.get(i).toString());
        }
        long missLookups = counters.lookups() - lookups;
        long missOneSided = counters.oneSided() - oneSided;
        long controlFrames = ucx.framesSent().sum() - frames;
        assertEquals(COUNT, missLookups + missOneSided, "every location was a miss, each resolved once");
        if (missLookups > 0) {
            assertTrue(controlFrames <= (missLookups + 63) / 64 + 1,
                    "the misses went out in lookup batches: " + controlFrames + " frames for " + missLookups);
        }
        assertTrue(ucx.gets().sum() + ucx.laneFileViews().sum() - gets >= COUNT,
                "a get (or a read of the agent's file mapped here) per needle at least");
        assertEquals(0, sidecar.pool.inUse(), "every read buffer went back");
    }
}
