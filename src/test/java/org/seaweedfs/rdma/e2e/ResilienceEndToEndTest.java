package org.seaweedfs.rdma.e2e;

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
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.junit5.VertxExtension;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.sidecar.StubMaster;
import org.seaweedfs.rdma.sidecar.StubVolumeServer;
import org.seaweedfs.rdma.testing.HostProcess;
import org.seaweedfs.rdma.testing.PrometheusText;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.Fixtures;

/**
 * Resilience through the product's faces (HTTP, event bus, /health, /status, peer-state events), with the stack
 * deployed by SeaweedRdma: the agent stops while the sidecar serves, and comes back on its port. The HTTP fallback
 * reaches the same fixture files through stand-ins for the SeaweedFS master and volume server (which cannot run
 * here). (ResilientReadPathAgentTest covers the same faults under load at the read-path level.)
 */
@ExtendWith(VertxExtension.class)
class ResilienceEndToEndTest {

    private static final String FILE_2 = "2,0306bfd555";
    private static final String COMMAND_GO = "1,01bb51ad02";
    private static final String ONE_SIDED = "seaweedfs_rdma_location_cache_lookups_onesided_total";
    private static final String MISSES = "seaweedfs_rdma_location_cache_misses_total";
    private static final String FALLBACK = "seaweedfs_rdma_location_cache_lookups_fallback_total";
    /** Quick detection and recovery, so the test waits little; nothing asserts how long anything took. */
    private static final String FAST = """
              readTimeout: 3s
              ping: {interval: 500ms}
              breaker: {openDuration: 300ms}
            """;

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();
    private final List<JsonObject> peerEvents = new CopyOnWriteArrayList<>();
    private WebClient client;

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private Stack agent(int port) {
        Stack agent = Stack.agent(dir, port);
        open.add(agent);
        return agent;
    }

    /** The sidecar, with an HTTP client on its port and its peer-state events recorded. */
    private Stack sidecar(Vertx vertx, int agentPort, String extra) {
        // /read served by the fallbacks too (http.readSliceFallback), so the fallbacks' slices are checked here
        Stack sidecar = Stack.sidecar(agentPort, extra, ", readSliceFallback: true");
        open.add(sidecar);
        sidecar.vertx.eventBus().<JsonObject>consumer("seaweedfs.rdma.peer-state", m -> peerEvents.add(m.body()));
        client = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1")
                .setDefaultPort(sidecar.httpPort()).setDecompressionSupported(false));
        return sidecar;
    }

    private HttpResponse<Buffer> get(String uri) {
        return await(client.get(uri).send());
    }

    private boolean sawState(String state) {
        return peerEvents.stream().anyMatch(e -> state.equals(e.getString("state")));
    }

    private FixtureNeedles.Expected expected(String fid) {
        FileId id = FileId.parse(fid);
        return FixtureNeedles.live(dir,
                id.volumeId()).stream().filter(e -> e.fid().equals(id)).findFirst().orElseThrow();
    }

    /** A stand-in volume server, and the master that lists it. */
    private record HttpFallback(StubVolumeServer volumeServer, int masterPort) {

        /** The sidecar settings that fall back to it over HTTP, quick to detect and recover. */
        String sidecarSettings() {
            return sidecarSettings(FAST);
        }

        /** The sidecar settings that fall back to it over HTTP, with {@code timing}'s settings. */
        String sidecarSettings(String timing) {
            return "  master: '127.0.0.1:" + masterPort + "'\n  fallback: [http]\n" + timing;
        }
    }

    /**
     * The fixture volumes behind stand-ins for the volume server and the master (which lists it for volumes 1 and 2).
     */
    private HttpFallback httpFallback(Vertx vertx) {
        Fixtures.copyDir("volumes", dir);
        StubVolumeServer volumeServer = await(new StubVolumeServer(vertx).start(dir));
        open.add(() -> await(volumeServer.stop()));
        StubMaster master = await(new StubMaster(vertx).start());
        open.add(() -> await(master.stop()));
        master.locate(1, volumeServer.url());
        master.locate(2, volumeServer.url());
        return new HttpFallback(volumeServer, master.port());
    }

    @Test
    void aStoppedAgentFallsBackToTheVolumeServerAndRdmaServesAgainWhenItReturns(Vertx vertx) {
        HttpFallback fallbackTo = httpFallback(vertx);
        StubVolumeServer volumeServer = fallbackTo.volumeServer();
        Stack agent = agent(0);
        int port = agent.agentPort();
        Stack sidecar = sidecar(vertx, port, fallbackTo.sidecarSettings());
        byte[] file2 = expected(FILE_2).plain();
        byte[] commandGo = expected(COMMAND_GO).plain();

        HttpResponse<Buffer> before = get("/" + FILE_2);
        assertEquals("rdma", before.getHeader("X-Source"));
        assertArrayEquals(file2, before.body().getBytes());

        agent.close();
        until("the sidecar saw the agent go down", () -> sawState("down"));
        JsonObject down =
                peerEvents.stream().filter(e -> "down".equals(e.getString("state"))).findFirst().orElseThrow();
        assertEquals("127.0.0.1:" + port, down.getString("agent"));
        assertEquals("up", down.getString("previous"));

        HttpResponse<Buffer> fallback = get("/" + FILE_2);
        assertEquals(200, fallback.statusCode());
        assertEquals("http", fallback.getHeader("X-Source"));
        assertEquals("false", fallback.getHeader("X-RDMA-Used"));
        assertArrayEquals(file2, fallback.body().getBytes());
        assertEquals("\"" + expected(FILE_2).etag() + "\"", fallback.getHeader("ETag"));
        HttpResponse<Buffer> compressed = get("/" + COMMAND_GO);
        assertEquals("http", compressed.getHeader("X-Source"));
        assertArrayEquals(commandGo, compressed.body().getBytes());
        HttpResponse<Buffer> slice = get("/read?file_id=" + FILE_2 + "&offset=1000&size=500&volume_server=http://"
                + volumeServer.url());
        assertEquals("http", slice.getHeader("X-Source"));
        assertEquals("false", slice.getHeader("X-RDMA-Used"));
        assertArrayEquals(Arrays.copyOfRange(file2, 1000, 1500), slice.body().getBytes());
        assertTrue(volumeServer.requests() > 0, "the stand-in volume server served the fallback");
        assertEquals(404, get("/2,0306bfd556").statusCode(), "a wrong cookie stays a 404 on the fallback");

        JsonObject health = get("/health").bodyAsJsonObject();
        assertEquals("degraded", health.getString("status"));
        assertFalse(health.getJsonObject("rdma").getBoolean("connected"));
        JsonObject agentStatus = get("/status").bodyAsJsonObject().getJsonArray("agents").getJsonObject(0);
        assertEquals("down", agentStatus.getString("state"));
        assertEquals("open", agentStatus.getString("breaker"));

        restartAgent(port);
        until("the sidecar saw the agent come back", () -> peerEvents.stream()
                .dropWhile(e -> !"down".equals(e.getString("state"))).anyMatch(e -> "up".equals(e.getString("state"))));
        until("RDMA serves again", () -> {
            HttpResponse<Buffer> r = get("/" + FILE_2);
            assertArrayEquals(file2, r.body().getBytes(), "whichever path serves, the bytes are right");
            return "rdma".equals(r.getHeader("X-Source"));
        });
        until("the breaker closed (trial reads succeeded) and /health is healthy again", () -> {
            get("/" + COMMAND_GO);
            return "closed".equals(get("/status").bodyAsJsonObject().getJsonArray("agents").getJsonObject(0)
                    .getString("breaker")) && "healthy".equals(get("/health").bodyAsJsonObject().getString("status"));
        });
    }

    /**
     * An agent process stopped with SIGSTOP over real UCX (tcp): its connection stays open and its pings are far off,
     * so only the hedge can help. A needle whose location is cached is still read over RDMA from the agent's file,
     * mapped here (same host), which needs nothing of the agent; one that must be looked up at the agent is hedged to
     * the volume server and answered from there, with the right bytes, while the agent is still up for the pings.
     * After SIGCONT RDMA serves again.
     */
    @Test
    void readsToAStoppedAgentAreHedgedToTheVolumeServer(Vertx vertx) {
        HttpFallback fallbackTo = httpFallback(vertx);
        HostProcess agent = agentProcess();
        // The pings are far off (readTimeout 8s: a hedge delay of at most 2s before a window of reads sets it).
        sidecar(vertx, agent.awaitAgentPort(),
                fallbackTo.sidecarSettings("  readTimeout: 8s\n  ping: {interval: 1h}\n"));
        byte[] file2 = expected(FILE_2).plain();
        assertEquals("rdma", get("/" + FILE_2).getHeader("X-Source"));

        agent.stop(true);
        try {
            HttpResponse<Buffer> cached = get("/" + FILE_2);
            assertEquals("rdma", cached.getHeader("X-Source"), "read from the agent's file, mapped here");
            assertArrayEquals(file2, cached.body().getBytes());
            HttpResponse<Buffer> hedged = get("/" + COMMAND_GO);
            assertEquals(200, hedged.statusCode());
            assertEquals("http", hedged.getHeader("X-Source"));
            assertArrayEquals(expected(COMMAND_GO).plain(), hedged.body().getBytes());
            JsonObject status = get("/status").bodyAsJsonObject().getJsonArray("agents").getJsonObject(0);
            assertEquals("up", status.getString("state"), "the pings have not noticed: the hedge served");
            String metrics = get("/metrics").bodyAsString();
            assertTrue(metrics.contains("seaweedfs_rdma_hedges_won_total{source=\"http\"} 1.0"), metrics);
        } finally {
            agent.stop(false);
        }
        until("RDMA serves again", () -> {
            HttpResponse<Buffer> r = get("/" + FILE_2);
            assertArrayEquals(file2, r.body().getBytes(), "whichever path serves, the bytes are right");
            return "rdma".equals(r.getHeader("X-Source"));
        });
    }

    /**
     * The agent's UCX endpoint fails while a sidecar's one-sided get of a bucket of the agent's exposed index is in
     * flight (over UCX's TCP transport a get is served by the agent's worker, so a stopped agent leaves it in flight;
     * then the agent dies). The get fails, the read falls back to a lookup (counted under cause {@code get}), and
     * once the agent is gone the fixture's bytes come from the volume server.
     */
    @Test
    void aBucketGetThatFailsFallsBackAndTheVolumeServerServesTheBytes(Vertx vertx) {
        HttpFallback fallbackTo = httpFallback(vertx);
        HostProcess agent = agentProcess();
        // No pings and a hedge delay (a quarter of the deadline) far off: only the failed get ends the RDMA attempt.
        sidecar(vertx, agent.awaitAgentPort(),
                fallbackTo.sidecarSettings("  readTimeout: 10m\n  ping: {interval: 1h}\n"));
        List<FixtureNeedles.Expected> needles = FixtureNeedles.live(dir, 1);
        int read = 0;
        // Each needle is read once (never cached): the first miss loads the exposed index, later ones read it.
        while (metrics().sum(ONE_SIDED) == 0) {
            assertTrue(read < needles.size() - 1, "no needle of volume 1 was found in the agent's exposed index");
            HttpResponse<Buffer> r = get("/" + needles.get(read).fid());
            assertEquals("rdma", r.getHeader("X-Source"));
            assertArrayEquals(needles.get(read).plain(), r.body().getBytes());
            read++;
        }
        FixtureNeedles.Expected next = needles.get(read);
        PrometheusText before = metrics();

        agent.stop(true);
        try {
            Future<HttpResponse<Buffer>> answer = client.get("/" + next.fid()).send();
            // A miss goes to the exposed index in the same task as it is counted: its bucket get is in flight now.
            until("the read missed the location cache", () -> metrics().sum(MISSES) > before.sum(MISSES));
            assertFalse(answer.isComplete(), () -> "the agent is stopped: nothing answered the read yet, got "
                    + (answer.succeeded() ? answer.result().statusCode() + " " + answer.result().headers()
                            + answer.result().bodyAsString() : answer.cause()));
            agent.kill();
            HttpResponse<Buffer> r = await(answer);
            assertEquals(200, r.statusCode());
            assertEquals("http", r.getHeader("X-Source"));
            assertArrayEquals(next.plain(), r.body().getBytes());
        } finally {
            agent.kill();
        }
        PrometheusText after = metrics();
        assertEquals(1, after.sum(FALLBACK, "cause=get") - before.sum(FALLBACK, "cause=get"),
                "the failed bucket get fell back to a lookup");
        assertEquals(before.sum(ONE_SIDED), after.sum(ONE_SIDED), "nothing was found one-sidedly");
    }

    /** The fixture volumes served by an agent in a process of its own (one that a test can stop or kill). */
    private HostProcess agentProcess() {
        HostProcess agent = HostProcess.serve(dir, "agent", "roles: [agent]\n"
                + "http: {host: 127.0.0.1, port: 0}\n"
                + "agent: {listen: '127.0.0.1:0', volumeDirs: ['" + dir + "']}\n" + Stack.UCX);
        open.add(agent);
        return agent;
    }

    private PrometheusText metrics() {
        return PrometheusText.parse(get("/metrics").bodyAsString());
    }

    @Test
    void withTheAgentDownReadSlicesAreRangeRequestsToTheVolumeServer(Vertx vertx) {
        HttpFallback fallbackTo = httpFallback(vertx);
        StubVolumeServer volumeServer = fallbackTo.volumeServer();
        Stack agent = agent(0);
        sidecar(vertx, agent.agentPort(), fallbackTo.sidecarSettings());
        agent.close();
        until("the sidecar saw the agent go down", () -> sawState("down"));
        byte[] file2 = expected(FILE_2).plain();
        byte[] commandGo = expected(COMMAND_GO).plain();

        HttpResponse<Buffer> slice = get("/read?file_id=" + FILE_2 + "&offset=1000&size=500");
        assertEquals(200, slice.statusCode());
        assertEquals("http", slice.getHeader("X-Source"));
        assertEquals("false", slice.getHeader("X-RDMA-Used"));
        assertEquals("\"" + expected(FILE_2).etag() + "\"", slice.getHeader("ETag"));
        assertArrayEquals(Arrays.copyOfRange(file2, 1000, 1500), slice.body().getBytes());
        HttpResponse<Buffer> compressed = get("/read?file_id=" + COMMAND_GO + "&offset=12&size=50");
        assertArrayEquals(Arrays.copyOfRange(commandGo, 12, 62), compressed.body().getBytes(), "decompressed bytes");
        HttpResponse<Buffer> atEnd = get("/read?file_id=" + FILE_2 + "&offset=" + file2.length + "&size=10");
        assertEquals(200, atEnd.statusCode());
        assertEquals("0", atEnd.getHeader("Content-Length"));
        HttpResponse<Buffer> past = get("/read?file_id=" + FILE_2 + "&offset=" + (file2.length + 1) + "&size=10");
        assertEquals(416, past.statusCode());
        assertEquals("bytes */" + file2.length, past.getHeader("Content-Range"));

        assertTrue(volumeServer.ranges().containsAll(List.of("bytes=1000-1499", "bytes=12-61")),
                volumeServer.ranges().toString());
        assertEquals(volumeServer.ranges().size(), volumeServer.requests(), "every fallback request asked for a range");
        assertTrue(volumeServer.bodyBytes() < file2.length, "the whole needle never crossed the network");
    }

    @Test
    void withoutAFallbackAStoppedAgentIs503OnEveryFace(Vertx vertx) {
        Fixtures.copyDir("volumes", dir);
        Stack agent = agent(0);
        Stack sidecar = sidecar(vertx, agent.agentPort(), "  fallback: []\n" + FAST);
        JsonObject request = new JsonObject().put("fid", FILE_2);
        assertEquals("rdma",
                await(sidecar.vertx.eventBus().request("seaweedfs.needle.read", request)).headers().get("source"));

        agent.close();
        until("the sidecar saw the agent go down", () -> sawState("down"));
        for (String address : List.of("seaweedfs.needle.read", "seaweedfs.needle.stat")) {
            ReplyException e = assertThrows(ReplyException.class,
                    () -> await(sidecar.vertx.eventBus().request(address, request)), address);
            assertEquals(503, e.failureCode(), address + ": " + e.getMessage());
        }
        HttpResponse<Buffer> r = get("/" + FILE_2);
        assertEquals(503, r.statusCode());
        assertEquals(503, r.bodyAsJsonObject().getInteger("code"));
        HttpResponse<Buffer> health = get("/health");
        assertEquals(503, health.statusCode());
        assertEquals("unhealthy", health.bodyAsJsonObject().getString("status"));
    }

    /**
     * The agent again on its old port. UCX_TCP_CM_REUSEADDR=y (surefire's environment) lets it rebind at once;
     * should the port still be held, retry as an operator's restart would.
     */
    private void restartAgent(int port) {
        until("the agent listening on port " + port + " again", () -> {
            try {
                return agent(port);
            } catch (RuntimeException e) {
                return null;
            }
        }, java.util.Objects::nonNull, java.time.Duration.ofSeconds(20));
    }
}
