package org.seaweedfs.rdma.e2e;

import org.seaweedfs.rdma.testing.AgentSetup;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;
import static org.seaweedfs.rdma.testing.Await.until;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.SeaweedRdma;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.Fixtures;

/**
 * The sidecar's start-up and unknown volumes through its three faces (needle URLs, {@code /read}, the event bus),
 * with a real agent over UCX: reads that arrive before the agent is connected wait for it and are served over
 * RDMA; with no agent coming they answer 503 with {@code Retry-After} saying the sidecar is starting; {@code /ready}
 * is 503 until start-up is over; a volume nothing knows is 404, volume ids beyond 32 bits keep their low 32 bits.
 */
@ExtendWith(VertxExtension.class)
class StartupEndToEndTest {

    /** Fixture README: file_2 of volume 2, 75634 bytes, not compressed. */
    private static final String FILE_2 = "2,0306bfd555";
    /** The same needle: 4294967298 keeps its low 32 bits, 2. */
    private static final String FILE_2_WIDE = "4294967298,0306bfd555";
    /** 99999999999 keeps 1215752191: a volume no agent serves. */
    private static final String UNKNOWN = "99999999999,0102030405";
    private static final DeliveryOptions PATIENT = new DeliveryOptions().setSendTimeout(120_000);

    @TempDir
    Path dir;

    /** Closed last opened first. */
    private final Deque<AutoCloseable> open = new ArrayDeque<>();

    @AfterEach
    void closeAll() throws Exception {
        while (!open.isEmpty()) {
            open.pop().close();
        }
    }

    @Test
    void readsBeforeTheAgentIsConnectedWaitForItAndAreServedOverRdma(Vertx vertx) throws IOException {
        Fixtures.copyDir("volumes", dir);
        int agentPort = freePort();
        // The agent is not there yet: the first attempt is refused, and start-up lasts the read timeout from then.
        // No fallback: RDMA is the one path that can serve them.
        Vertx sidecarVertx = sidecar(agentPort, 0, "  readTimeout: 60s\n  fallback: []\n");
        SeaweedRdma sidecar = server;
        WebClient client = client(vertx, sidecar.httpPort());
        HttpResponse<Buffer> notReady = await(client.get("/ready").send());
        assertEquals(503, notReady.statusCode());
        assertEquals(true, notReady.bodyAsJsonObject().getBoolean("starting"), notReady.bodyAsString());

        Future<HttpResponse<Buffer>> url = client.get("/" + FILE_2).send();
        Future<HttpResponse<Buffer>> slice = client.get("/read?file_id=" + FILE_2 + "&offset=0&size=100").send();
        Future<Message<Object>> bus = sidecarVertx.eventBus().request("seaweedfs.needle.read",
                new JsonObject().put("fid", FILE_2), PATIENT);
        until("the three reads wait for the agent", () -> sidecar.connections().startup().waiting() == 3);
        assertFalse(url.isComplete() || slice.isComplete() || bus.isComplete());

        AgentHarness agent = new AgentHarness(dir, "tcp",
                AgentSetup.config("listen: '127.0.0.1:" + agentPort + "'"));
        open.push(agent);
        byte[] expected = expected(FILE_2);
        HttpResponse<Buffer> whole = await(url);
        assertEquals(200, whole.statusCode(), whole.bodyAsString());
        assertEquals("rdma", whole.getHeader("X-Source"));
        assertArrayEquals(expected, whole.body().getBytes());
        HttpResponse<Buffer> first100 = await(slice);
        assertEquals(200, first100.statusCode(), first100.bodyAsString());
        assertEquals("rdma", first100.getHeader("X-Source"), "/read is served by RDMA only");
        assertArrayEquals(java.util.Arrays.copyOf(expected, 100), first100.body().getBytes());
        Message<Object> reply = await(bus);
        assertArrayEquals(expected, ((Buffer) reply.body()).getBytes());
        assertEquals("rdma", reply.headers().get("source"), "the event bus's read came over RDMA");
        assertEquals(0, agent.agent.metrics().readThroughBytes().sum(), "the agent copied no bytes");
        until("/ready once the agent is connected", () -> await(client.get("/ready").send()).statusCode() == 200);
        assertFalse(sidecar.connections().startup().isOpen());
    }

    @Test
    void withNoAgentComingAReadAnswers503WithRetryAfterSayingTheSidecarIsStarting(Vertx vertx) throws IOException {
        // A port that accepts TCP and never answers: the first attempt to this "agent" is bounded by the UCX handshake
        // timeout (10 s), well past each read's deadline (1 s).
        ServerSocket silent = new ServerSocket(0);
        open.push(silent);
        Thread acceptor = new Thread(() -> {
            List<Socket> held = new ArrayList<>();
            try {
                while (true) {
                    held.add(silent.accept());
                }
            } catch (IOException closed) {
                held.forEach(s -> { try { s.close(); } catch (IOException ignored) { } });
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        int httpPort = freePort();
        Vertx sidecarVertx = Vertx.vertx();
        open.push(() -> await(sidecarVertx.close()));
        // Not awaited: deploy completes once the first attempt has ended; the listener takes reads before that.
        String yaml = yaml(silent.getLocalPort(), httpPort, "  readTimeout: 1s\n");
        SeaweedRdma.deploy(sidecarVertx, ConfigLoader.parse(yaml, "start-up test", Map.of()), null);
        WebClient client = client(vertx, httpPort);
        HttpResponse<Buffer> ready = until("the HTTP listener answers", () -> client.get("/ready").send()
                .otherwiseEmpty().toCompletionStage().toCompletableFuture().get(), r -> r != null);
        assertEquals(503, ready.statusCode());
        assertTrue(ready.bodyAsJsonObject().getBoolean("starting"), ready.bodyAsString());

        for (String uri : new String[] {"/" + FILE_2, "/read?file_id=" + FILE_2}) {
            HttpResponse<Buffer> r = await(client.get(uri).send());
            assertEquals(503, r.statusCode(), uri);
            assertEquals("1", r.getHeader("Retry-After"), uri);
            String error = r.bodyAsJsonObject().getString("error");
            assertTrue(error.startsWith("the sidecar is starting: no agent connected so far serves volume 2"), error);
            assertTrue(error.contains("127.0.0.1:" + silent.getLocalPort()), error);
        }
        ReplyException bus = assertThrows(ReplyException.class, () -> await(sidecarVertx.eventBus().request(
                "seaweedfs.needle.read", new JsonObject().put("fid", FILE_2), PATIENT)));
        assertEquals(503, bus.failureCode());
        assertTrue(bus.getMessage().contains("the sidecar is starting"), bus.getMessage());
    }

    @Test
    void aVolumeNoAgentServesIs404AndVolumeIdsKeepTheirLow32Bits(Vertx vertx) {
        Fixtures.copyDir("volumes", dir);
        AgentHarness agent = new AgentHarness(dir, "tcp", AgentSetup.DEFAULTS);
        open.push(agent);
        // No master, no volume servers: every agent connected and none lists the volume is all there is to know.
        Vertx sidecarVertx = sidecar(agent.port(), 0, "");
        WebClient client = client(vertx, server.httpPort());
        until("start-up over", () -> !server.connections().startup().isOpen());
        assertEquals(200, await(client.get("/ready").send()).statusCode());

        HttpResponse<Buffer> unknown = await(client.get("/" + UNKNOWN).send());
        assertEquals(404, unknown.statusCode());
        assertTrue(unknown.body() == null || unknown.body().length() == 0, "the volume server's empty 404");
        HttpResponse<Buffer> unknownSlice = await(client.get("/read?file_id=" + UNKNOWN).send());
        assertEquals(404, unknownSlice.statusCode());
        assertTrue(unknownSlice.bodyAsJsonObject().getString("error").contains("no agent serves volume 1215752191"),
                unknownSlice.bodyAsString());
        ReplyException bus = assertThrows(ReplyException.class, () -> await(sidecarVertx.eventBus().request(
                "seaweedfs.needle.read", new JsonObject().put("fid", UNKNOWN), PATIENT)));
        assertEquals(404, bus.failureCode());

        byte[] expected = expected(FILE_2);
        HttpResponse<Buffer> wide = await(client.get("/" + FILE_2_WIDE).send());
        assertEquals(200, wide.statusCode());
        assertArrayEquals(expected, wide.body().getBytes());
        HttpResponse<Buffer> wideSlice = await(client.get("/read?file_id=" + FILE_2_WIDE).send());
        assertEquals(200, wideSlice.statusCode(), wideSlice.bodyAsString());
        assertArrayEquals(expected, wideSlice.body().getBytes());
        Message<Object> reply = await(sidecarVertx.eventBus().request("seaweedfs.needle.read",
                new JsonObject().put("fid", FILE_2_WIDE), PATIENT));
        assertArrayEquals(expected, ((Buffer) reply.body()).getBytes());
        ReplyException tooWide = assertThrows(ReplyException.class, () -> await(sidecarVertx.eventBus().request(
                "seaweedfs.needle.read", new JsonObject().put("fid", "18446744073709551616,0306bfd555"), PATIENT)));
        assertEquals(400, tooWide.failureCode());
        assertEquals(400, await(client.get("/18446744073709551616,0306bfd555").send()).statusCode());
        assertEquals(400, await(client.get("/read?file_id=18446744073709551616,0306bfd555").send()).statusCode());
    }

    @Test
    void aVolumeIsNot404WhileAnAgentIsDown(Vertx vertx) throws IOException {
        Fixtures.copyDir("volumes", dir);
        AgentHarness agent = new AgentHarness(dir, "tcp", AgentSetup.DEFAULTS);
        open.push(agent);
        int goneAgent = freePort();
        // One agent up, one that refuses: once start-up is over the down agent might serve any volume.
        server = await(SeaweedRdma.deploy(newVertx(), ConfigLoader.parse(yaml(agent.port(), 0, "  readTimeout: 1s\n")
                .replace("agents: ['127.0.0.1:" + agent.port() + "']",
                        "agents: ['127.0.0.1:" + agent.port() + "', '127.0.0.1:" + goneAgent + "']"),
                "start-up test", Map.of()), null));
        open.push(() -> await(server.close()));
        WebClient client = client(vertx, server.httpPort());
        until("start-up over", () -> !server.connections().startup().isOpen());
        HttpResponse<Buffer> r = await(client.get("/" + UNKNOWN).send());
        assertEquals(503, r.statusCode());
        String error = r.bodyAsJsonObject().getString("error");
        assertTrue(error.contains("no agent serves volume 1215752191"), error);
        assertTrue(error.contains("127.0.0.1:" + goneAgent + " is down"), error);
        HttpResponse<Buffer> up = await(client.get("/" + FILE_2).send());
        assertEquals(200, up.statusCode(), "the agent that is up still serves: " + up.bodyAsString());
        assertArrayEquals(expected(FILE_2), up.body().getBytes());
    }

    private SeaweedRdma server;

    /** A sidecar connecting to the agent on {@code agentPort}; its Vert.x instance, the server in {@link #server}. */
    private Vertx sidecar(int agentPort, int httpPort, String extra) {
        Vertx v = newVertx();
        server = await(SeaweedRdma.deploy(v, ConfigLoader.parse(yaml(agentPort, httpPort, extra), "start-up test",
                Map.of()), null));
        SeaweedRdma s = server;
        open.push(() -> await(s.close()));
        return v;
    }

    private Vertx newVertx() {
        Vertx v = Vertx.vertx();
        open.push(() -> await(v.close()));
        return v;
    }

    private static String yaml(int agentPort, int httpPort, String extra) {
        return Stack.sidecarYaml(agentPort, extra)
                .replace("port: 0, instances: 2", "port: " + httpPort + ", instances: 2");
    }

    private static WebClient client(Vertx vertx, int port) {
        return WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(port)
                .setDecompressionSupported(false));
    }

    private byte[] expected(String fid) {
        FileId id = FileId.parse(fid);
        return FixtureNeedles.live(dir, id.volumeId()).stream().filter(e -> e.fid().equals(id)).findFirst()
                .orElseThrow().plain();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
