package org.seaweedfs.rdma.protocol;

/**
 * The first request on a connection. The agent answers {@link HelloOk}, or {@link ErrorReply} with
 * UNSUPPORTED_VERSION, or UNAUTHORIZED when {@code agent.authToken} is set and the token is missing or wrong.
 *
 * @param protocolVersion the version the sender speaks (1..255)
 * @param clientId        who is calling, for the agent's logs (1..256 bytes)
 * @param token           the shared secret, or null (at most 1024 bytes)
 */
public record Hello(long requestId, int protocolVersion, String clientId, String token) implements ControlMessage {
    public Hello {
        FieldCheck.requestId("Hello", requestId, MessageType.HELLO);
        FieldCheck.range("Hello.protocolVersion", protocolVersion, 1, 255);
        FieldCheck.text("Hello.clientId", clientId, ProtocolLimits.MAX_ID_BYTES);
        FieldCheck.optionalText("Hello.token", token, ProtocolLimits.MAX_TOKEN_BYTES);
    }

    @Override
    public MessageType type() {
        return MessageType.HELLO;
    }

    /** Never prints the token. */
    @Override
    public String toString() {
        return "Hello[requestId=" + Long.toUnsignedString(requestId) + ", protocolVersion=" + protocolVersion
                + ", clientId=" + clientId + ", token=" + (token == null ? "none" : "***") + "]";
    }
}
