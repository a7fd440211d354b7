package org.seaweedfs.rdma.sidecar.connection;

/**
 * The connection manager's view of one agent. {@code CONNECTING} is the state before the first
 * successful connection; an agent that is lost stays {@code DOWN} through its reconnection attempts
 * (each attempt would otherwise flap the state and flood the event bus) until one succeeds.
 */
public enum PeerState {
    CONNECTING("connecting"),
    UP("up"),
    DOWN("down");

    /** The name used on the event bus, in metrics and in {@code /status}. */
    public final String label;

    PeerState(String label) {
        this.label = label;
    }
}
