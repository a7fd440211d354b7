package org.seaweedfs.rdma.protocol;

/**
 * The agent's acceptance of a {@link Hello}.
 *
 * @param protocolVersion the version both sides use from now on (1..255)
 * @param agentId         the agent's identity (1..256 bytes); changes when the agent restarts
 * @param serverTimeMs    the agent's wall clock, unix milliseconds
 */
public record HelloOk(long requestId, int protocolVersion, String agentId, long serverTimeMs)
        implements ControlMessage {
    public HelloOk {
        FieldCheck.requestId("HelloOk", requestId, MessageType.HELLO_OK);
        FieldCheck.range("HelloOk.protocolVersion", protocolVersion, 1, 255);
        FieldCheck.text("HelloOk.agentId", agentId, ProtocolLimits.MAX_ID_BYTES);
        FieldCheck.nonNegative("HelloOk.serverTimeMs", serverTimeMs);
    }

    @Override
    public MessageType type() {
        return MessageType.HELLO_OK;
    }
}
