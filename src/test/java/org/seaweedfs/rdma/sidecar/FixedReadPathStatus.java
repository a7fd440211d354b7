package org.seaweedfs.rdma.sidecar;

import java.util.List;

/** TEST DOUBLE of the connection manager's status: whatever the test sets. */
public final class FixedReadPathStatus implements ReadPathStatus {

    private volatile Health health = Health.HEALTHY;
    private volatile boolean enabled = true;
    private volatile boolean starting;
    private volatile List<AgentStatus> agents = List.of(
            new AgentStatus("127.0.0.1:18515", "up", "closed", List.of(3L, 7L), 42, null));

    public FixedReadPathStatus set(Health h, List<AgentStatus> a) {
        health = h;
        agents = List.copyOf(a);
        return this;
    }

    public FixedReadPathStatus rdmaEnabled(boolean on) {
        enabled = on;
        return this;
    }

    public FixedReadPathStatus starting(boolean on) {
        starting = on;
        return this;
    }

    @Override
    public boolean starting() {
        return starting;
    }

    @Override
    public Health health() {
        return health;
    }

    @Override
    public boolean rdmaEnabled() {
        return enabled;
    }

    @Override
    public List<AgentStatus> agents() {
        return agents;
    }
}
