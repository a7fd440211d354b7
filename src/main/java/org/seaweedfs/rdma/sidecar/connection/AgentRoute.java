package org.seaweedfs.rdma.sidecar.connection;

/**
 * The agent chosen for one read, resolved once: its peer, its live connection (null when it has none) and the
 * connection's view of the volume (null when the connection does not list the volume, yet or any more).
 *
 * @param peer the agent as the connection manager knows it; null for a connection used on its own (no manager)
 */
public record AgentRoute(AgentPeer peer, long volumeId, AgentConnection connection, RemoteVolume volume) {

    /** A route through {@code connection} alone (no peer), e.g. a read path used without the connection manager. */
    public static AgentRoute of(AgentConnection connection, long volumeId) {
        return new AgentRoute(null, volumeId, connection, connection == null ? null : connection.volume(volumeId));
    }

    /** The same connection's view of the volume now (after a re-list). */
    public AgentRoute relisted() {
        return new AgentRoute(peer, volumeId, connection, connection == null ? null : connection.volume(volumeId));
    }

    /** This route while the peer still has the same connection, else the peer's route through its new one. */
    public AgentRoute current() {
        return peer == null || peer.connection() == connection ? this : peer.route(volumeId);
    }
}
