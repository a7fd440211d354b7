package org.seaweedfs.rdma.sidecar;

import java.util.List;

/**
 * What the read path knows about its own health, for {@code /health} and {@code /status}. The
 * connection manager implements it; calls come from event loops, so answers must be cheap snapshots.
 */
public interface ReadPathStatus {

    enum Health {
        /** RDMA serves reads. */
        HEALTHY,
        /** Reads are served, but some or all by a fallback path. */
        DEGRADED,
        /** No path can serve reads. */
        UNHEALTHY
    }

    /**
     * One agent as the sidecar sees it.
     *
     * @param address   the agent's host:port
     * @param state     "connecting", "up" or "down"
     * @param breaker   circuit-breaker state: "closed", "open", "half_open" (or "disabled")
     * @param volumes   volume ids the agent serves
     * @param needles   locations of its needles in the sidecar's location cache
     * @param lastError the last failure seen, null when none
     */
    record AgentStatus(String address, String state, String breaker, List<Long> volumes, long needles,
                       String lastError) {
        public AgentStatus {
            volumes = List.copyOf(volumes);
        }
    }

    Health health();

    /** RDMA is configured (the sidecar role runs with at least one way to find agents). */
    boolean rdmaEnabled();

    /** At least one agent is up. */
    default boolean rdmaConnected() {
        return agents().stream().anyMatch(a -> "up".equals(a.state()));
    }

    List<AgentStatus> agents();

    /** Whether the sidecar is starting: a configured agent is neither connected nor given up on for now yet. */
    default boolean starting() {
        return false;
    }
}
