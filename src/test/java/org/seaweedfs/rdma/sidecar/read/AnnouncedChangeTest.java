package org.seaweedfs.rdma.sidecar.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.protocol.ControlCodec;
import org.seaweedfs.rdma.protocol.ControlMessage;
import org.seaweedfs.rdma.protocol.ErrorCode;
import org.seaweedfs.rdma.protocol.ErrorReply;
import org.seaweedfs.rdma.protocol.Hello;
import org.seaweedfs.rdma.protocol.HelloOk;
import org.seaweedfs.rdma.protocol.VolumeChanged;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.protocol.VolumeList;
import org.seaweedfs.rdma.protocol.VolumeListRequest;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.connection.AgentConnection;
import org.seaweedfs.rdma.sidecar.connection.AgentRoute;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.Await;
import org.seaweedfs.rdma.ucx.UcxChannel;
import org.seaweedfs.rdma.ucx.UcxListener;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;
import org.seaweedfs.rdma.volume.FileId;

/**
 * A read of a volume whose agent announced a change of it (compacted, or an EC volume's new generation: its old
 * offsets are invalid, so the sidecar drops it) while no volume list has told of the change yet fails retriably,
 * never NOT_FOUND: nothing said the volume is gone. Only a list that lacks the volume says it is not served. A
 * STAND-IN agent (real UCX, scripted replies) lists volume 7 once, announces the change, then answers every later
 * list request as {@code later} says.
 */
class AnnouncedChangeTest {

    private static final FileId FID = new FileId(7, 42, 1);

    @Test
    void aVolumeChangingWhileNoListTellsOfItFailsRetriablyNotNotFound() {
        ReadFailure failure = readAfterTheChange(id -> ErrorReply.of(id, ErrorCode.INTERNAL, "cannot list volumes now"),
                true);
        assertEquals(ReadFailure.Kind.UNAVAILABLE, failure.kind(), failure.getMessage());
        assertTrue(failure.dataGone(), failure.getMessage());
        assertTrue(failure.getMessage().contains("changed at agent"), failure.getMessage());
    }

    @Test
    void aVolumeALaterListLacksIsNotFound() {
        ReadFailure failure = readAfterTheChange(id -> new VolumeList(id, List.of()), false);
        assertEquals(ReadFailure.Kind.NOT_FOUND, failure.kind(), failure.getMessage());
        assertTrue(failure.getMessage().contains("is not served by agent"), failure.getMessage());
    }

    /** The failure of a read of {@link #FID} once the stand-in announced that volume 7 changed. */
    private static ReadFailure readAfterTheChange(java.util.function.LongFunction<ControlMessage> later,
                                                  boolean relistingAfter) {
        Vertx agentVertx = Vertx.vertx();
        ControlCodec codec = new ControlCodec();
        AtomicInteger lists = new AtomicInteger();
        AtomicReference<UcxChannel> sidecarChannel = new AtomicReference<>();
        try (ReadPathHarness.SidecarSide sidecar = new ReadPathHarness.SidecarSide("sm,tcp,self",
                new RegisteredBufferPool.Settings(4096, 1, 4096, 1))) {
            UcxWorkerVerticle ucx = new UcxWorkerVerticle(AgentHarness.ucx("sm,tcp,self"));
            await(agentVertx.deployVerticle(ucx));
            UcxListener listener = await(ucx.listen("127.0.0.1", 0, channel -> channel.frameHandler(frame -> {
                sidecarChannel.set(channel);
                ControlMessage request = codec.decode(frame.getBytes());
                long id = request.requestId();
                ControlMessage reply = null;
                if (request instanceof Hello) {
                    reply = new HelloOk(id, ControlCodec.PROTOCOL_VERSION, "stand-in/1", 1, "",
                            ucx.settings().peerSettings());
                } else if (request instanceof VolumeListRequest) {
                    reply = lists.getAndIncrement() == 0
                            ? new VolumeList(id, List.of(new VolumeInfo(7, "", 3, 1, 0, 160, List.of())))
                            : later.apply(id);
                }
                if (reply != null) {
                    channel.send(Buffer.buffer(codec.encode(reply)));
                }
            })));
            AgentConnection connection = sidecar.connect(listener.port(), null);
            assertFalse(connection.isRelisting(7));
            sidecarChannel.get().send(Buffer.buffer(codec.encode(
                    new VolumeChanged(7, 2, VolumeChanged.Reason.COMPACTED))));
            Await.until("volume 7 dropped and its list asked for again",
                    () -> connection.volume(7) == null && lists.get() > 1);
            NeedleReader reader = sidecar.reader(vid -> AgentRoute.of(connection, vid), ReadPathOptions.defaults());
            Promise<NeedleContent> read = Promise.promise();
            sidecar.vertx.getOrCreateContext().runOnContext(v -> reader.read(FID).onComplete(read));
            Throwable failed = await(read.future().map(c -> (Throwable) null).otherwise(e -> e));
            assertEquals(relistingAfter, connection.isRelisting(7));
            return assertInstanceOf(ReadFailure.class, failed);
        } finally {
            await(agentVertx.close());
        }
    }
}
