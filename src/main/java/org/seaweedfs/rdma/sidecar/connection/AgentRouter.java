package org.seaweedfs.rdma.sidecar.connection;

/**
 * Which agent serves a volume. The connection manager implements it (one connection per agent, replaced on
 * reconnect); tests route to one connection of their own.
 *
 * <p>Called on every read from any thread: it must be thread-safe, cheap and non-blocking.
 */
@FunctionalInterface
public interface AgentRouter {

    /** The route for the volume, or null when no agent is known for it (a read through it fails UNAVAILABLE). */
    AgentRoute routeFor(long volumeId);
}
