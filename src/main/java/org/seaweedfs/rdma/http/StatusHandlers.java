package org.seaweedfs.rdma.http;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.seaweedfs.rdma.sidecar.ReadPathStatus;

/**
 * {@code /health} (the schema {@code weed mount} reads: {@code status} and {@code rdma.enabled}; 200 when
 * healthy or degraded, 503 when unhealthy) and {@code /status} (agents, their states, breakers, volumes).
 */
final class StatusHandlers {

    private final HttpApiContext api;

    StatusHandlers(HttpApiContext api) {
        this.api = api;
    }

    void health(RoutingContext ctx) {
        ReadPathStatus.Health health = api.status().health();
        List<ReadPathStatus.AgentStatus> agents = api.status().agents();
        JsonObject body = summary(health)
                .put("agents", new JsonObject()
                        .put("total", agents.size())
                        .put("up", agents.stream().filter(a -> "up".equals(a.state())).count()));
        send(ctx, health, body);
    }

    void status(RoutingContext ctx) {
        ReadPathStatus.Health health = api.status().health();
        JsonArray agents = new JsonArray();
        Map<String, JsonArray> volumes = new TreeMap<>();
        for (ReadPathStatus.AgentStatus a : api.status().agents()) {
            agents.add(new JsonObject()
                    .put("address", a.address())
                    .put("state", a.state())
                    .put("breaker", a.breaker())
                    .put("volumes", new JsonArray(List.copyOf(a.volumes())))
                    .put("needles", a.needles())
                    .put("lastError", a.lastError()));
            a.volumes().forEach(v -> volumes.computeIfAbsent(Long.toString(v), k -> new JsonArray()).add(a.address()));
        }
        JsonObject body = summary(health).put("agents", agents).put("volumes", new JsonObject(Map.copyOf(volumes)));
        send(ctx, health, body);
    }

    private JsonObject summary(ReadPathStatus.Health health) {
        return new JsonObject()
                .put("status", health.name().toLowerCase(Locale.ROOT))
                .put("rdma", new JsonObject()
                        .put("enabled", api.status().rdmaEnabled())
                        .put("connected", api.status().rdmaConnected()))
                .put("reads", new JsonObject()
                        .put("inFlight", api.admission().inFlight())
                        .put("maxInFlight", api.admission().limit()));
    }

    private static void send(RoutingContext ctx, ReadPathStatus.Health health, JsonObject body) {
        ctx.response()
                .setStatusCode(health == ReadPathStatus.Health.UNHEALTHY ? 503 : 200)
                .putHeader("Content-Type", "application/json")
                .putHeader("Cache-Control", "no-store")
                .end(body.encode());
    }
}
