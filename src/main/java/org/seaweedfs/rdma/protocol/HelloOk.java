package org.seaweedfs.rdma.protocol;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The agent's acceptance of a {@link Hello}.
 *
 * @param protocolVersion the version both sides use from now on (1..255)
 * @param agentId         the agent's identity (1..256 bytes); changes when the agent restarts
 * @param serverTimeMs    the agent's wall clock, unix milliseconds
 * @param ucxVersion      the agent's UCX library version, e.g. {@code 1.13.1} (at most 64 bytes; empty when the agent
 *                        cannot tell)
 * @param ucxSettings     the UCX transport settings a peer must share with the agent, by name (e.g.
 *                        {@code TCP_RX_SEG_SIZE -> 262144}; at most 32, names of 1..64 of A-Z, 0-9 and _, values
 *                        unsigned): the sidecar compares them with its own and closes the connection when any differs
 */
public record HelloOk(long requestId, int protocolVersion, String agentId, long serverTimeMs, String ucxVersion,
                      Map<String, Long> ucxSettings) implements ControlMessage {

    private static final Pattern SETTING_NAME = Pattern.compile("[A-Z0-9_]{1,64}");

    public HelloOk {
        FieldCheck.requestId("HelloOk", requestId, MessageType.HELLO_OK);
        FieldCheck.range("HelloOk.protocolVersion", protocolVersion, 1, 255);
        FieldCheck.text("HelloOk.agentId", agentId, ProtocolLimits.MAX_ID_BYTES);
        FieldCheck.nonNegative("HelloOk.serverTimeMs", serverTimeMs);
        if (ucxVersion == null) {
            throw FieldCheck.bad("HelloOk.ucxVersion", "is required (empty when unknown)");
        }
        FieldCheck.optionalText("HelloOk.ucxVersion", ucxVersion, ProtocolLimits.MAX_UCX_VERSION_BYTES);
        if (ucxSettings == null) {
            throw FieldCheck.bad("HelloOk.ucxSettings", "is required");
        }
        if (ucxSettings.size() > ProtocolLimits.MAX_UCX_SETTINGS) {
            throw FieldCheck.bad("HelloOk.ucxSettings", "more than " + ProtocolLimits.MAX_UCX_SETTINGS + " elements");
        }
        Map<String, Long> copy = new LinkedHashMap<>();
        ucxSettings.forEach((name, value) -> {
            if (name == null || !SETTING_NAME.matcher(name).matches()) {
                throw FieldCheck.bad("HelloOk.ucxSettings", "name must be 1..64 of A-Z, 0-9 and _, got '" + name + "'");
            }
            if (value == null || value < 0) {
                throw FieldCheck.bad("HelloOk.ucxSettings." + name, "must not be negative, got " + value);
            }
            copy.put(name, value);
        });
        ucxSettings = Collections.unmodifiableMap(copy);
    }

    @Override
    public MessageType type() {
        return MessageType.HELLO_OK;
    }
}
