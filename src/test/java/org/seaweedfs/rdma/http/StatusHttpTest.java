package org.seaweedfs.rdma.http;

import static org.junit.jupiter.api.Assertions.*;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.sidecar.ReadPathStatus;
import org.seaweedfs.rdma.sidecar.ReadPathStatus.AgentStatus;

class StatusHttpTest extends HttpApiTestBase {

    @Test
    void healthyIs200WithTheSchemaWeedMountReads() throws Exception {
        HttpResponse<Buffer> r = await(get("/health").send());
        assertEquals(200, r.statusCode());
        JsonObject body = r.bodyAsJsonObject();
        assertEquals("healthy", body.getString("status"));
        assertEquals(new JsonObject().put("enabled", true).put("connected", true), body.getJsonObject("rdma"));
        assertEquals(new JsonObject().put("total", 1).put("up", 1).put("serving", 1), body.getJsonObject("agents"));
        assertEquals("healthy", body.getString("readPath"));
        assertEquals(new JsonArray(), body.getJsonArray("reasons"));
    }

    @Test
    void degradedIs200AndUnhealthyIs503() throws Exception {
        status.set(ReadPathStatus.Health.DEGRADED,
                List.of(new AgentStatus("a:1", "down", "open", List.of(3L), 0, "refused")));
        HttpResponse<Buffer> degraded = await(get("/health").send());
        assertEquals(200, degraded.statusCode());
        assertEquals("degraded", degraded.bodyAsJsonObject().getString("status"));
        assertFalse(degraded.bodyAsJsonObject().getJsonObject("rdma").getBoolean("connected"));
        status.set(ReadPathStatus.Health.UNHEALTHY, List.of());
        HttpResponse<Buffer> unhealthy = await(get("/health").send());
        assertEquals(503, unhealthy.statusCode());
        assertEquals("unhealthy", unhealthy.bodyAsJsonObject().getString("status"));
    }

    @Test
    void oneOfTwoAgentsDownIsHealthyForWeedMountWithTheReasonInTheBody() throws Exception {
        status.set(ReadPathStatus.Health.DEGRADED, List.of(
                new AgentStatus("a:1", "up", "closed", List.of(3L), 10, null),
                new AgentStatus("b:2", "down", "open", List.of(7L), 0, "connection refused")));
        HttpResponse<Buffer> r = await(get("/health").send());
        assertEquals(200, r.statusCode());
        JsonObject body = r.bodyAsJsonObject();
        assertEquals("healthy", body.getString("status"));
        assertTrue(body.getJsonObject("rdma").getBoolean("enabled"));
        assertEquals("degraded", body.getString("readPath"));
        assertEquals(new JsonArray().add("agent b:2 is down, breaker open: connection refused"),
                body.getJsonArray("reasons"));
        assertEquals(new JsonObject().put("total", 2).put("up", 2 - 1).put("serving", 1), body.getJsonObject("agents"));
    }

    @Test
    void healthFollowsWhetherAnyAgentsBreakerLetsReadsThrough() throws Exception {
        String[][] cases = {
                // breaker of the one up agent, expected status
                {"closed", "healthy"}, {"half_open", "healthy"}, {"disabled", "healthy"},
                {"open", "degraded"}, {"forced_open", "degraded"}};
        for (String[] c : cases) {
            status.set(ReadPathStatus.Health.DEGRADED,
                    List.of(new AgentStatus("a:1", "up", c[0], List.of(3L), 1, null)));
            assertEquals(c[1], await(get("/health").send()).bodyAsJsonObject().getString("status"), c[0]);
        }
        status.set(ReadPathStatus.Health.DEGRADED,
                List.of(new AgentStatus("a:1", "connecting", "closed", List.of(), 0, null)));
        assertEquals("degraded", await(get("/health").send()).bodyAsJsonObject().getString("status"));
        status.set(ReadPathStatus.Health.HEALTHY, List.of()).rdmaEnabled(false);
        HttpResponse<Buffer> none = await(get("/health").send());
        assertEquals(200, none.statusCode());
        assertEquals("degraded", none.bodyAsJsonObject().getString("status"), "no agent: RDMA cannot serve");
        assertEquals(new JsonArray().add("no agent is known"), none.bodyAsJsonObject().getJsonArray("reasons"));
    }

    @Test
    void statusListsAgentsBreakersAndVolumes() throws Exception {
        status.set(ReadPathStatus.Health.DEGRADED, List.of(
                new AgentStatus("a:1", "up", "closed", List.of(3L, 7L), 10, null),
                new AgentStatus("b:2", "down", "open", List.of(7L), 0, "ping timeout")));
        JsonObject body = await(get("/status").send()).bodyAsJsonObject();
        assertEquals("healthy", body.getString("status"), "a:1 serves reads over RDMA");
        assertEquals("degraded", body.getString("readPath"));
        JsonArray agents = body.getJsonArray("agents");
        assertEquals(2, agents.size());
        assertEquals(new JsonObject().put("address", "b:2").put("state", "down").put("breaker", "open")
                .put("serving", false).put("volumes", new JsonArray().add(7)).put("needles", 0).put("lastError",
                        "ping timeout"), agents.getJsonObject(1));
        assertEquals(new JsonObject().put("3", new JsonArray().add("a:1")).put("7",
                new JsonArray().add("a:1").add("b:2")),
                body.getJsonObject("volumes"));
        assertEquals(new JsonObject().put("inFlight", 0).put("maxInFlight", 64).put("total", 0)
                .put("bySource", new JsonObject().put("rdma", 0).put("read-through", 0).put("http", 0).put("none", 0))
                .put("failed", 0).put("meanMs", 0.0), body.getJsonObject("reads"));
        assertEquals(new JsonArray().add("sidecar"), body.getJsonArray("roles"));
    }

    @Test
    void statusCountsFinishedReadsBySourceWithTheirMeanLatency() throws Exception {
        api.meters().recordRead("rdma", "ok", 2_000_000);
        api.meters().recordRead("http", "timeout", 4_000_000);
        JsonObject reads = await(get("/status").send()).bodyAsJsonObject().getJsonObject("reads");
        assertEquals(2, reads.getLong("total"));
        assertEquals(1, reads.getJsonObject("bySource").getLong("rdma"));
        assertEquals(1, reads.getJsonObject("bySource").getLong("http"));
        assertEquals(1, reads.getLong("failed"), "the timed-out read failed");
        assertEquals(3.0, reads.getDouble("meanMs"));
    }

    @Test
    void readyIs503OnlyWhenNothingCanServe() throws Exception {
        status.set(ReadPathStatus.Health.DEGRADED, List.of(new AgentStatus("a:1", "down", "open", List.of(), 0, "x")));
        HttpResponse<Buffer> degraded = await(get("/ready").send());
        assertEquals(200, degraded.statusCode());
        assertEquals(new JsonObject().put("ready", true).put("roles", new JsonObject().put("sidecar", true))
                        .put("starting", false), degraded.bodyAsJsonObject());
        status.set(ReadPathStatus.Health.UNHEALTHY, List.of(new AgentStatus("a:1", "down", "open", List.of(), 0, "x")));
        HttpResponse<Buffer> unhealthy = await(get("/ready").send());
        assertEquals(503, unhealthy.statusCode());
        assertFalse(unhealthy.bodyAsJsonObject().getBoolean("ready"));
    }

    @Test
    void readyIs503WhileStartingEvenWithEveryAgentUp() throws Exception {
        status.starting(true);
        HttpResponse<Buffer> starting = await(get("/ready").send());
        assertEquals(503, starting.statusCode());
        assertEquals(new JsonObject().put("ready", false).put("roles", new JsonObject().put("sidecar", false))
                .put("starting", true), starting.bodyAsJsonObject());
        JsonObject health = await(get("/health").send()).bodyAsJsonObject();
        assertTrue(health.getBoolean("starting"));
        assertTrue(health.getJsonArray("reasons").contains(
                "the sidecar is starting: not every configured agent is connected yet"), health.encode());
        status.starting(false);
        assertEquals(200, await(get("/ready").send()).statusCode());
    }

    @Test
    void historyIsAbsentWhereNoneIsKept() throws Exception {
        assertEquals(404, await(get("/status/history").send()).statusCode());
    }

    @Test
    void metricsIsAbsentWithoutARegistry() throws Exception {
        HttpResponse<Buffer> r = await(get("/metrics").send());
        assertEquals(404, r.statusCode());
        assertEquals("metrics are disabled (metrics.enabled: false)", r.bodyAsJsonObject().getString("error"));
    }
}
