package org.seaweedfs.rdma.protocol;

/** A liveness probe; the agent answers {@link Pong} echoing {@code sentNanos} (the sender's System.nanoTime). */
public record Ping(long requestId, long sentNanos) implements ControlMessage {
    public Ping {
        FieldCheck.requestId("Ping", requestId, MessageType.PING);
    }

    @Override
    public MessageType type() {
        return MessageType.PING;
    }
}
