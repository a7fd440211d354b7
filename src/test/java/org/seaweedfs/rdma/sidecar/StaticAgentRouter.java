package org.seaweedfs.rdma.sidecar;

import org.seaweedfs.rdma.sidecar.connection.AgentConnection;
import org.seaweedfs.rdma.sidecar.connection.AgentRoute;
import org.seaweedfs.rdma.sidecar.connection.AgentRouter;

/** Test routing: every volume to one connection, which may be swapped (e.g. after a reconnect). Thread-safe. */
public final class StaticAgentRouter implements AgentRouter {

    private volatile AgentConnection connection;

    public StaticAgentRouter(AgentConnection connection) {
        this.connection = connection;
    }

    public void set(AgentConnection replacement) {
        this.connection = replacement;
    }

    @Override
    public AgentRoute routeFor(long volumeId) {
        return AgentRoute.of(connection, volumeId);
    }
}
