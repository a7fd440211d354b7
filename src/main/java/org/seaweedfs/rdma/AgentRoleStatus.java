package org.seaweedfs.rdma;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.InetSocketAddress;
import org.seaweedfs.rdma.agent.AgentMetrics;
import org.seaweedfs.rdma.agent.AgentVerticle;
import org.seaweedfs.rdma.agent.AgentVolumeStatus;
import org.seaweedfs.rdma.http.RoleStatus;

/**
 * The agent role as {@code /status} and {@code /ready} show it, read from the snapshots the agent publishes (never
 * from its context): its id and listener, the volumes it serves (epoch, memory, needles, segments), the sidecars
 * connected, and the requests it served. Lives in the composition root so that {@code http} knows no agent class.
 */
final class AgentRoleStatus implements RoleStatus {

    private final AgentVerticle agent;

    AgentRoleStatus(AgentVerticle agent) {
        this.agent = agent;
    }

    @Override
    public String role() {
        return "agent";
    }

    @Override
    public boolean ready() {
        return agent.port() > 0;
    }

    @Override
    public JsonObject status() {
        AgentMetrics m = agent.metrics();
        JsonArray volumes = new JsonArray();
        for (AgentVolumeStatus v : m.volumeStatus()) {
            volumes.add(new JsonObject()
                    .put("id", v.id())
                    .put("collection", v.collection())
                    .put("epoch", Long.toUnsignedString(v.epoch()))
                    .put("memory", v.memory())
                    .put("needles", v.needles())
                    .put("segments", v.segments())
                    .put("servedBytes", v.servedBytes()));
        }
        InetSocketAddress listen = agent.listenAddress();
        return new JsonObject()
                .put("id", agent.instanceId())
                .put("ready", ready())
                .put("listen", listen == null ? null : listen.getHostString() + ":" + listen.getPort())
                .put("volumeMemory", agent.settings().volumeMemory().configName())
                .put("volumeCopyBytes", m.volumeCopyBytes())
                .put("volumes", volumes)
                .put("sidecars", new JsonArray(m.sidecars()))
                .put("served", new JsonObject()
                        .put("hellos", m.hellos().sum())
                        .put("lookups", m.lookups().sum())
                        .put("syncs", m.syncs().sum())
                        .put("readThroughs", m.readThroughs().sum())
                        .put("readThroughBytes", m.readThroughBytes().sum())
                        .put("errors", m.errorsSent().sum()));
    }
}
