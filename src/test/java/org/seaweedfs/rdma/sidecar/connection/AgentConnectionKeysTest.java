package org.seaweedfs.rdma.sidecar.connection;

import org.seaweedfs.rdma.testing.AgentSetup;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.StaticAgentRouter;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.sidecar.read.NeedleReader;
import org.seaweedfs.rdma.sidecar.read.ReadPathOptions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;
import static org.seaweedfs.rdma.testing.Await.until;

import io.vertx.core.buffer.Buffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.VolumeWriter;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.SparseVolumes;

/**
 * A long-lived connection to an agent whose volume grows (its short tail segment re-mapped, so its key replaced)
 * and then disappears: the connection holds exactly the keys of the segments it currently mirrors.
 */
class AgentConnectionKeysTest {

    private static final RegisteredBufferPool.Settings POOL =
            new RegisteredBufferPool.Settings(64 << 10, 16, 1 << 20, 4);

    @TempDir
    Path dir;

    @Test
    void keysOfReplacedAndDroppedMirrorsAreReleased() throws Exception {
        try (VolumeWriter writer = VolumeWriter.create(dir, "", 9, 3, IndexFormat.of(false))) {
            writer.append(NewNeedle.builder(1, 11, bytes(1000, 1)).build());
        }
        try (AgentHarness agent = new AgentHarness(dir, "sm,tcp,self", AgentSetup.DEFAULTS);
             ReadPathHarness.SidecarSide sidecar = new ReadPathHarness.SidecarSide("sm,tcp,self", POOL)) {
            AgentConnection connection = sidecar.connect(agent.port(), null);
            NeedleReader reader = sidecar.reader(new StaticAgentRouter(connection), ReadPathOptions.defaults());
            for (int i = 2; i <= 9; i++) {
                // Half a segment further each time: the short tail is re-mapped, every other time a segment added.
                SparseVolumes.appendAt(dir.resolve("9.dat"), dir.resolve("9.idx"), IndexFormat.of(false),
                        (i - 1) * SparseVolumes.GIB / 2 - 1000, NewNeedle.builder(i, 11, bytes(3000, i)).build());
                FileId fid = new FileId(9, i, 11);
                byte[] expected = bytes(3000, i);
                until("needle " + fid + " readable", () -> {
                    try {
                        NeedleContent content = await(reader.read(fid));
                        Buffer all = Buffer.buffer();
                        content.chunks().forEach(all::appendBuffer);
                        content.release();
                        assertArrayEquals(expected, all.getBytes());
                        return true;
                    } catch (ReadFailure e) {
                        return false;
                    }
                });
                until("holds match the mirrored segments", () -> holds(connection) == segments(connection));
            }
            assertTrue(segments(connection) >= 6, "the volume spans several re-mapped segments");

            Files.delete(dir.resolve("9.dat"));
            Files.delete(dir.resolve("9.idx"));
            until("volume 9 dropped", () -> connection.volume(9) == null);
            until("no keys held for a removed volume", () -> holds(connection) == 0);
            assertEquals(0, (int) await(connection.channel().remoteKeyCount()));
        }
    }

    private static int holds(AgentConnection connection) {
        return await(connection.channel().remoteKeyHolds());
    }

    private static int segments(AgentConnection connection) {
        RemoteVolume mirror = connection.volume(9); // and the key of its exposed index, once loaded
        return mirror == null ? 0 : mirror.info().segments().size() + (mirror.locations().indexLoaded() ? 1 : 0);
    }

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }
}
