package org.seaweedfs.rdma.http;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.seaweedfs.rdma.metrics.ReadTally;
import org.seaweedfs.rdma.sidecar.ReadPathStatus;
import org.seaweedfs.rdma.sidecar.ReadPathStatus.AgentStatus;

/**
 * {@code /health}, {@code /ready}, {@code /status} and {@code /status/history} for whatever roles the process runs.
 * Without the sidecar role {@code /health} is liveness alone (200 while the process answers) and {@code /status}
 * shows the agent. With it, {@code /health} is the schema {@code weed mount} reads once, at mount start: {@code status}
 * and {@code rdma.enabled})
 * and {@code /status} (agents, their states, breakers, volumes). Both share the summary:
 * <ul>
 *   <li>{@code status}: {@code healthy} (200) whenever RDMA can serve reads: at least one agent up whose breaker
 *       lets reads through; {@code degraded} (200) when only a fallback path can; {@code unhealthy} (503) when
 *       nothing can;</li>
 *   <li>{@code readPath}: the read path's own view ({@code healthy} only when every agent is up with a closed
 *       breaker), and {@code reasons}: why not, one line per agent that is not.</li>
 * </ul>
 * {@code /ready} is 200 when every role serves (the sidecar: start-up over and not {@code unhealthy}; the agent: its
 * listener bound), else 503; with the sidecar its body says {@code starting}.
 */
final class StatusHandlers {

    /** Breaker states that refuse reads (Resilience4j's names, lower-cased). */
    private static final Set<String> BLOCKING_BREAKERS = Set.of("open", "forced_open");

    private final HttpApiContext api;

    StatusHandlers(HttpApiContext api) {
        this.api = api;
    }

    void health(RoutingContext ctx) {
        if (!api.sidecar()) {
            send(ctx, new JsonObject().put("status", "healthy").put("roles", roles()));
            return;
        }
        List<AgentStatus> agents = api.status().agents();
        JsonObject body = summary(agents)
                .put("agents", new JsonObject()
                        .put("total", agents.size())
                        .put("up", agents.stream().filter(a -> "up".equals(a.state())).count())
                        .put("serving", agents.stream().filter(StatusHandlers::serves).count()));
        send(ctx, body);
    }

    void ready(RoutingContext ctx) {
        JsonObject byRole = new JsonObject();
        if (api.sidecar()) {
            List<AgentStatus> agents = api.status().agents();
            ReadPathStatus.Health health = overall(api.status().rdmaEnabled(), api.status().health(), agents);
            byRole.put("sidecar", !api.status().starting() && health != ReadPathStatus.Health.UNHEALTHY);
        }
        if (api.agent() != null) {
            byRole.put(api.agent().role(), api.agent().ready());
        }
        boolean ready = byRole.stream().allMatch(e -> Boolean.TRUE.equals(e.getValue()));
        JsonObject body = new JsonObject().put("ready", ready).put("roles", byRole);
        if (api.sidecar()) {
            body.put("starting", api.status().starting());
        }
        ctx.response()
                .setStatusCode(ready ? 200 : 503)
                .putHeader("Content-Type", "application/json")
                .putHeader("Cache-Control", "no-store")
                .end(body.encode());
    }

    void history(RoutingContext ctx) {
        if (api.history() == null) {
            HttpErrors.send(ctx.response(), 404, "no read history here (the sidecar role keeps it)");
            return;
        }
        send(ctx, api.history().toJson());
    }

    void status(RoutingContext ctx) {
        if (!api.sidecar()) {
            send(ctx, withAgent(new JsonObject().put("status", "healthy").put("roles", roles())));
            return;
        }
        List<AgentStatus> all = api.status().agents();
        JsonArray agents = new JsonArray();
        Map<String, JsonArray> volumes = new TreeMap<>();
        for (AgentStatus a : all) {
            agents.add(new JsonObject()
                    .put("address", a.address())
                    .put("state", a.state())
                    .put("breaker", a.breaker())
                    .put("serving", serves(a))
                    .put("volumes", new JsonArray(List.copyOf(a.volumes())))
                    .put("needles", a.needles())
                    .put("lastError", a.lastError()));
            a.volumes().forEach(v -> volumes.computeIfAbsent(Long.toString(v), k -> new JsonArray()).add(a.address()));
        }
        JsonObject body = summary(all).put("roles", roles()).put("agents", agents)
                .put("volumes", new JsonObject(Map.copyOf(volumes)));
        ReadTally tally = api.meters().tally();
        long reads = tally.reads();
        body.getJsonObject("reads")
                .put("total", reads)
                .put("bySource", new JsonObject(new LinkedHashMap<String, Object>(tally.bySource())))
                .put("failed", tally.failed())
                .put("meanMs", reads == 0 ? 0.0 : Math.round(tally.totalNanos() / 1e3 / reads) / 1000.0);
        send(ctx, withAgent(body));
    }

    private JsonArray roles() {
        JsonArray roles = new JsonArray();
        if (api.sidecar()) {
            roles.add("sidecar");
        }
        if (api.agent() != null) {
            roles.add(api.agent().role());
        }
        return roles;
    }

    private JsonObject withAgent(JsonObject body) {
        return api.agent() == null ? body : body.put(api.agent().role(), api.agent().status());
    }

    /** An agent RDMA reads can go to now: up, its breaker letting reads through (closed, half-open, disabled). */
    static boolean serves(AgentStatus agent) {
        return "up".equals(agent.state()) && !BLOCKING_BREAKERS.contains(agent.breaker());
    }

    /** What {@code /health} says: healthy whenever RDMA serves reads, else the read path's degraded or unhealthy. */
    static ReadPathStatus.Health overall(boolean rdmaEnabled, ReadPathStatus.Health readPath,
            List<AgentStatus> agents) {
        if (rdmaEnabled && agents.stream().anyMatch(StatusHandlers::serves)) {
            return ReadPathStatus.Health.HEALTHY;
        }
        return readPath == ReadPathStatus.Health.HEALTHY ? ReadPathStatus.Health.DEGRADED : readPath;
    }

    private JsonObject summary(List<AgentStatus> agents) {
        ReadPathStatus.Health readPath = api.status().health();
        boolean enabled = api.status().rdmaEnabled();
        JsonArray reasons = new JsonArray();
        for (AgentStatus a : agents) {
            if (!"up".equals(a.state()) || !"closed".equals(a.breaker())) {
                reasons.add("agent " + a.address() + " is " + a.state() + ", breaker " + a.breaker()
                        + (a.lastError() == null ? "" : ": " + a.lastError()));
            }
        }
        if (agents.isEmpty()) {
            reasons.add("no agent is known");
        }
        boolean starting = api.status().starting();
        if (starting) {
            reasons.add("the sidecar is starting: not every configured agent is connected yet");
        }
        return new JsonObject()
                .put("status", name(overall(enabled, readPath, agents)))
                .put("readPath", name(readPath))
                .put("starting", starting)
                .put("reasons", reasons)
                .put("rdma", new JsonObject()
                        .put("enabled", enabled)
                        .put("connected", api.status().rdmaConnected()))
                .put("reads", new JsonObject()
                        .put("inFlight", api.admission().inFlight())
                        .put("maxInFlight", api.admission().limit()));
    }

    private static String name(ReadPathStatus.Health health) {
        return health.name().toLowerCase(Locale.ROOT);
    }

    private static void send(RoutingContext ctx, JsonObject body) {
        ctx.response()
                .setStatusCode("unhealthy".equals(body.getString("status")) ? 503 : 200)
                .putHeader("Content-Type", "application/json")
                .putHeader("Cache-Control", "no-store")
                .end(body.encode());
    }
}
