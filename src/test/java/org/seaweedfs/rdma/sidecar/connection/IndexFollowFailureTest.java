package org.seaweedfs.rdma.sidecar.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.protocol.ControlCodec;
import org.seaweedfs.rdma.protocol.ControlMessage;
import org.seaweedfs.rdma.protocol.ErrorCode;
import org.seaweedfs.rdma.protocol.ErrorReply;
import org.seaweedfs.rdma.protocol.Hello;
import org.seaweedfs.rdma.protocol.HelloOk;
import org.seaweedfs.rdma.protocol.LookupBatch;
import org.seaweedfs.rdma.protocol.LookupBatchResult;
import org.seaweedfs.rdma.protocol.SyncRequest;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.protocol.VolumeList;
import org.seaweedfs.rdma.protocol.VolumeListRequest;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.Await;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.ucx.UcxListener;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;
import org.seaweedfs.rdma.volume.FileId;

/**
 * An agent whose index cannot be followed (a STAND-IN agent: real UCX, scripted replies; it refuses every
 * SyncRequest): the sidecar must not cache that volume's locations (it could not learn of deletes), must keep
 * answering reads with lookups, and must not ask the agent again and again.
 */
class IndexFollowFailureTest {

    @Test
    void aVolumeWhoseIndexCannotBeFollowedIsLookedUpEveryTimeAndNotRetriedInALoop() {
        Vertx agentVertx = Vertx.vertx();
        ControlCodec codec = new ControlCodec();
        AtomicInteger syncs = new AtomicInteger();
        AtomicInteger batches = new AtomicInteger();
        try (ReadPathHarness.SidecarSide sidecar = new ReadPathHarness.SidecarSide("sm,tcp,self",
                new RegisteredBufferPool.Settings(4096, 1, 4096, 1))) {
            UcxWorkerVerticle ucx = new UcxWorkerVerticle(AgentHarness.ucx("sm,tcp,self"));
            await(agentVertx.deployVerticle(ucx));
            UcxListener listener = await(ucx.listen("127.0.0.1", 0, channel -> channel.frameHandler(frame -> {
                ControlMessage request = codec.decode(frame.getBytes());
                long id = request.requestId();
                ControlMessage reply;
                if (request instanceof Hello) {
                    reply = new HelloOk(id, ControlCodec.PROTOCOL_VERSION, "stand-in/1", 1, "",
                            ucx.settings().peerSettings());
                } else if (request instanceof VolumeListRequest) {
                    reply = new VolumeList(id, List.of(new VolumeInfo(7, "", 3, 1, 0, 160, List.of())));
                } else if (request instanceof SyncRequest) {
                    syncs.incrementAndGet();
                    reply = ErrorReply.of(id, ErrorCode.BAD_REQUEST, "no index for you");
                } else if (request instanceof LookupBatch batch) {
                    batches.incrementAndGet();
                    byte[] results = new byte[batch.count() * LookupBatchResult.RESULT_BYTES];
                    for (int i = 0; i < batch.count(); i++) {
                        LookupBatchResult.put(results, i, LookupBatchResult.FOUND, 1, 8, 10);
                    }
                    reply = new LookupBatchResult(id, results);
                } else {
                    reply = null;
                }
                if (reply != null) {
                    channel.send(Buffer.buffer(codec.encode(reply)));
                }
            })));
            AgentConnection connection = sidecar.connect(listener.port(), null);
            VolumeLocations locations = connection.volume(7).locations();
            Await.until("caching stopped for volume 7", () -> !locations.isCacheable());
            FileId fid = new FileId(7, 42, 1);
            for (int i = 1; i <= 3; i++) {
                LookupAnswer answer = await(locations.lookup(fid));
                assertEquals(LookupAnswer.Status.FOUND, answer.status());
                assertNull(locations.find(42), "nothing cached while the index is not followed");
                assertEquals(i, batches.get(), "every read asks the agent");
            }
            assertEquals(0, locations.cachedEntries());
            assertEquals(1, syncs.get(), "a refused follow is not retried in a loop");
            assertFalse(locations.isCacheable());
        } finally {
            await(agentVertx.close());
        }
    }
}
