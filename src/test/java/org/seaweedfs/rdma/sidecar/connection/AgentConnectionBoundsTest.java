package org.seaweedfs.rdma.sidecar.connection;

import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.protocol.ControlCodec;
import org.seaweedfs.rdma.protocol.ControlMessage;
import org.seaweedfs.rdma.protocol.Hello;
import org.seaweedfs.rdma.protocol.HelloOk;
import org.seaweedfs.rdma.protocol.SyncEntries;
import org.seaweedfs.rdma.protocol.SyncRequest;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.protocol.VolumeList;
import org.seaweedfs.rdma.protocol.VolumeListRequest;
import org.seaweedfs.rdma.ucx.UcxListener;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;
import org.seaweedfs.rdma.testing.AgentHarness;

/**
 * What an agent claims is not trusted for allocation: a STAND-IN agent (real UCX, scripted replies) lists a volume
 * whose .idx it says is 32 TiB long but sends no entries; the sidecar's mirror must not be pre-sized from that.
 */
class AgentConnectionBoundsTest {

    @Test
    void aClaimedHugeIndexDoesNotPresizeTheMirror() {
        Vertx agentVertx = Vertx.vertx();
        ControlCodec codec = new ControlCodec();
        try (ReadPathHarness.SidecarSide sidecar = new ReadPathHarness.SidecarSide("sm,tcp,self",
                new RegisteredBufferPool.Settings(4096, 1, 4096, 1))) {
            UcxWorkerVerticle ucx = new UcxWorkerVerticle(AgentHarness.ucx("sm,tcp,self"));
            await(agentVertx.deployVerticle(ucx));
            UcxListener listener = await(ucx.listen("127.0.0.1", 0, channel -> channel.frameHandler(frame -> {
                ControlMessage request = codec.decode(frame.getBytes());
                long id = request.requestId();
                ControlMessage reply = request instanceof Hello ? new HelloOk(id, ControlCodec.PROTOCOL_VERSION, "liar/1", 1)
                        : request instanceof VolumeListRequest
                        ? new VolumeList(id, List.of(new VolumeInfo(7, "", 3, 1, 0, 1L << 45, List.of())))
                        : request instanceof SyncRequest sync
                        ? new SyncEntries(id, 7, 1, sync.fromPosition(), sync.fromPosition(), false, new byte[0])
                        : null;
                if (reply != null) {
                    channel.send(Buffer.buffer(codec.encode(reply)));
                }
            })));
            AgentConnection connection = sidecar.connect(listener.port(), null);
            assertTrue(connection.isReady());
            assertEquals(0, connection.mirror(7).needles().size());
            assertTrue(connection.mirror(7).needles().capacity() <= AgentConnection.MAX_PRESIZED_ENTRIES * 2,
                    "capacity " + connection.mirror(7).needles().capacity());
        } finally {
            await(agentVertx.close());
        }
    }
}
