package org.seaweedfs.rdma.sidecar.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.LogCapture;
import org.seaweedfs.rdma.protocol.ControlCodec;
import org.seaweedfs.rdma.protocol.ControlMessage;
import org.seaweedfs.rdma.protocol.ErrorCode;
import org.seaweedfs.rdma.protocol.ErrorReply;
import org.seaweedfs.rdma.protocol.Hello;
import org.seaweedfs.rdma.protocol.HelloOk;
import org.seaweedfs.rdma.protocol.VolumeList;
import org.seaweedfs.rdma.protocol.VolumeListRequest;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.ucx.UcxLibrary;
import org.seaweedfs.rdma.ucx.UcxListener;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;

/**
 * What the sidecar does with the UCX version and settings in an agent's HelloOk, against a STAND-IN agent (real UCX,
 * scripted replies, so it can claim what a real agent on another host or release would): settings that differ are
 * refused before any other request, a different UCX version is named once, and an agent of another protocol version
 * is refused with both versions named.
 */
class AgentUcxCheckTest {

    private Vertx agentVertx;
    private UcxWorkerVerticle agentUcx;
    private ReadPathHarness.SidecarSide sidecar;
    private final AtomicInteger requestsAfterHello = new AtomicInteger();

    @BeforeEach
    void start() {
        agentVertx = Vertx.vertx();
        agentUcx = new UcxWorkerVerticle(AgentHarness.ucx("tcp"));
        await(agentVertx.deployVerticle(agentUcx));
        sidecar = new ReadPathHarness.SidecarSide("tcp", new RegisteredBufferPool.Settings(4096, 1, 4096, 1));
    }

    @AfterEach
    void stop() {
        sidecar.close();
        await(agentVertx.close());
    }

    @Test
    void anAgentWhoseSettingsDifferIsRefusedBeforeAnyOtherRequest() {
        Map<String, Long> settings = new TreeMap<>(agentUcx.settings().peerSettings());
        settings.put("TCP_RX_SEG_SIZE", 65536L);
        int port = standIn(new HelloOk(1, ControlCodec.PROTOCOL_VERSION, "stand-in/1", 1, UcxLibrary.version(),
                settings));
        RuntimeException e = assertThrows(RuntimeException.class, () -> sidecar.connect(port, null));
        ReadFailure refused = assertInstanceOf(ReadFailure.class, e);
        assertEquals(ReadFailure.Kind.UNAVAILABLE, refused.kind());
        assertTrue(refused.getMessage().startsWith("refused agent 127.0.0.1:" + port
                + " (stand-in/1): its UCX settings "
                + "differ from this sidecar's (TCP_RX_SEG_SIZE 65536 there, 262144 here)"), refused.getMessage());
        assertEquals(0, requestsAfterHello.get(), "nothing but Hello reached the agent");
    }

    @Test
    void anAgentOnAnotherUcxVersionIsNamedOnceAndServed() {
        assertTrue(!UcxLibrary.version().isEmpty(), "ucx_info tells this host's UCX version");
        int port = standIn(new HelloOk(1, ControlCodec.PROTOCOL_VERSION, "stand-in/1", 1, "1.99.0",
                agentUcx.settings().peerSettings()));
        try (LogCapture log = LogCapture.of(AgentConnection.class.getName(), "WARN")) {
            for (int i = 0; i < 2; i++) {
                AgentConnection connection = sidecar.connect(port, null);
                assertTrue(connection.isReady());
                await(connection.close());
            }
            List<String> warnings = log.messages().stream().filter(m -> m.contains("UCX")).toList();
            assertEquals(List.of("Agent 127.0.0.1:" + port + " runs UCX 1.99.0, this sidecar UCX "
                    + UcxLibrary.version()
                    + ": UCX keeps its wire format only between equal versions, so run the same UCX on both hosts"),
                    warnings);
        }
    }

    @Test
    void anAgentOfAnotherProtocolVersionIsRefusedWithBothVersionsNamed() {
        int port = standIn(ErrorReply.of(1, ErrorCode.UNSUPPORTED_VERSION,
                "Hello.protocolVersion: 3 is not spoken here; this agent speaks 2"));
        AgentError e = assertInstanceOf(AgentError.class, assertThrows(RuntimeException.class,
                () -> sidecar.connect(port, null)));
        assertEquals(ErrorCode.UNSUPPORTED_VERSION, e.code());
        assertEquals("agent 127.0.0.1:" + port
                + " answered Hello with UNSUPPORTED_VERSION: Hello.protocolVersion: 3 is "
                + "not spoken here; this agent speaks 2 (this sidecar speaks protocol 3 to 5: run the same release on "
                        + "agents "
                + "and sidecars)", e.getMessage());
    }

    /** A stand-in that answers Hello with {@code hello} (its request id replaced) and lists no volume. */
    private int standIn(ControlMessage hello) {
        ControlCodec codec = new ControlCodec();
        UcxListener listener = await(agentUcx.listen("127.0.0.1", 0, channel -> channel.frameHandler(frame -> {
            ControlMessage request = codec.decode(frame.getBytes());
            long id = request.requestId();
            ControlMessage reply;
            if (request instanceof Hello) {
                reply = hello instanceof HelloOk ok ? new HelloOk(id, ok.protocolVersion(), ok.agentId(),
                        ok.serverTimeMs(), ok.ucxVersion(), ok.ucxSettings())
                        : ErrorReply.of(id, ((ErrorReply) hello).code(), ((ErrorReply) hello).message());
            } else {
                requestsAfterHello.incrementAndGet();
                reply = request instanceof VolumeListRequest ? new VolumeList(id, List.of()) : null;
            }
            if (reply != null) {
                channel.send(Buffer.buffer(codec.encode(reply)));
            }
        })));
        return listener.port();
    }
}
