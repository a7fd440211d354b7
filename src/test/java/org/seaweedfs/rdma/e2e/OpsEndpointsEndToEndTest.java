package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import io.vertx.junit5.VertxExtension;

/**
 * Every process answers {@code /health}, {@code /ready}, {@code /status} and {@code /metrics} (with the JVM's and the
 * process's meters) whatever its roles: the shared stack's agent runs alone in its process ({@code roles: [agent]}),
 * serving the fixture volumes to the shared sidecar. Needle routes exist only where the sidecar runs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith({VertxExtension.class, SharedStack.class})
class OpsEndpointsEndToEndTest {

    /** Fixture README: command.go of volume 1. */
    private static final String COMMAND_GO = "1,01bb51ad02";

    private WebClient client;
    private int agentPort;
    private int sidecarPort;

    @BeforeAll
    void connect(Vertx vertx) {
        SharedStack.Running stack = SharedStack.get();
        client = WebClient.create(vertx);
        agentPort = stack.agent.httpPort();
        sidecarPort = stack.sidecar.httpPort();
    }

    private HttpResponse<Buffer> get(int port, String uri) {
        return await(client.get(port, "127.0.0.1", uri).send());
    }

    @Test
    void anAgentOnlyProcessAnswersHealthAndReady() {
        assertTrue(agentPort > 0, "the agent-only process opened its HTTP listener");
        HttpResponse<Buffer> health = get(agentPort, "/health");
        assertEquals(200, health.statusCode());
        assertEquals("healthy", health.bodyAsJsonObject().getString("status"));
        assertEquals(new JsonArray().add("agent"), health.bodyAsJsonObject().getJsonArray("roles"));
        HttpResponse<Buffer> ready = get(agentPort, "/ready");
        assertEquals(200, ready.statusCode(), ready.bodyAsString());
        assertEquals(new JsonObject().put("ready", true).put("roles", new JsonObject().put("agent", true)),
                ready.bodyAsJsonObject());
    }

    @Test
    void anAgentOnlyProcessExportsJvmAndProcessMetricsBesideItsOwn() {
        HttpResponse<Buffer> metrics = get(agentPort, "/metrics");
        assertEquals(200, metrics.statusCode());
        String text = metrics.bodyAsString();
        for (String name : new String[] {"jvm_memory_used_bytes", "jvm_gc_", "jvm_threads_live_threads",
                "jvm_classes_loaded_classes", "process_cpu_usage", "process_uptime_seconds", "process_files_open_files",
                "seaweedfs_rdma_agent_volumes", "seaweedfs_rdma_build_info"}) {
            assertTrue(text.contains(name), name + " missing from the agent's /metrics");
        }
    }

    @Test
    void anAgentOnlyProcessShowsItsVolumesAndSidecarsOnStatus() {
        HttpResponse<Buffer> status = get(agentPort, "/status");
        assertEquals(200, status.statusCode());
        JsonObject agent = status.bodyAsJsonObject().getJsonObject("agent");
        assertTrue(agent.getBoolean("ready"));
        assertEquals("mapped", agent.getString("volumeMemory"));
        Set<Long> ids = new HashSet<>();
        for (Object o : agent.getJsonArray("volumes")) {
            JsonObject v = (JsonObject) o;
            ids.add(v.getLong("id"));
            assertEquals("mapped", v.getString("memory"));
            assertTrue(v.getInteger("segments") >= 1, v.encode());
            assertTrue(Long.parseUnsignedLong(v.getString("epoch")) > 0, v.encode());
            assertTrue(v.getInteger("needles") >= 0, v.encode());
        }
        assertTrue(ids.containsAll(Set.of(1L, 2L)), "volumes 1 and 2 listed: " + ids);
        JsonObject volume1 = agent.getJsonArray("volumes").stream().map(JsonObject.class::cast)
                .filter(v -> v.getLong("id") == 1).findFirst().orElseThrow();
        assertTrue(volume1.getInteger("needles") > 0, volume1.encode());
        // The shared sidecar connected before any test ran: its channel is listed, and it said Hello.
        assertFalse(agent.getJsonArray("sidecars").isEmpty(), agent.encode());
        assertTrue(agent.getJsonObject("served").getLong("hellos") >= 1, agent.encode());
    }

    @Test
    void anAgentOnlyProcessHasNoNeedleRoutes() {
        assertEquals(404, get(agentPort, "/" + COMMAND_GO).statusCode());
        assertEquals(404, get(agentPort, "/1/01bb51ad02").statusCode());
        assertEquals(404, get(agentPort, "/read?file_id=" + COMMAND_GO + "&offset=0&size=10").statusCode());
        assertEquals(404, get(agentPort, "/status/history").statusCode());
        // The same needle is there on the sidecar.
        assertEquals(200, get(sidecarPort, "/" + COMMAND_GO).statusCode());
    }

    @Test
    void theSidecarCountsReadsOnStatusAndKeepsAHistory() {
        long before = get(sidecarPort, "/status").bodyAsJsonObject().getJsonObject("reads").getLong("total");
        assertEquals(200, get(sidecarPort, "/" + COMMAND_GO).statusCode());
        JsonObject reads = get(sidecarPort, "/status").bodyAsJsonObject().getJsonObject("reads");
        assertTrue(reads.getLong("total") >= before + 1, reads.encode());
        assertTrue(reads.getJsonObject("bySource").getLong("rdma") >= 1, reads.encode());
        HttpResponse<Buffer> ready = get(sidecarPort, "/ready");
        assertEquals(200, ready.statusCode(), ready.bodyAsString());
        JsonObject history = get(sidecarPort, "/status/history").bodyAsJsonObject();
        assertEquals(5, history.getInteger("intervalSeconds"));
        assertEquals(120, history.getInteger("maxSamples"));
        assertTrue(history.getJsonArray("samples").size() <= 120);
    }
}
