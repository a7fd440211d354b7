package org.seaweedfs.rdma.protocol;

/** The answer to {@link Ping}: its {@code sentNanos} unchanged, and the agent's wall clock in unix milliseconds. */
public record Pong(long requestId, long sentNanos, long agentTimeMs) implements ControlMessage {
    public Pong {
        FieldCheck.requestId("Pong", requestId, MessageType.PONG);
        FieldCheck.nonNegative("Pong.agentTimeMs", agentTimeMs);
    }

    @Override
    public MessageType type() {
        return MessageType.PONG;
    }
}
