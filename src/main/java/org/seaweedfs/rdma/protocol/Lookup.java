package org.seaweedfs.rdma.protocol;

/**
 * Asks where a needle's record is (the sidecar's mirror missed). Answered by {@link LookupResult}, or by
 * ErrorReply UNKNOWN_VOLUME.
 *
 * @param volumeId u32
 * @param key      u64 needle key
 * @param cookie   u32 cookie (bit pattern); a mismatch answers "not found", as the volume server does
 */
public record Lookup(long requestId, long volumeId, long key, int cookie) implements ControlMessage {
    public Lookup {
        FieldCheck.requestId("Lookup", requestId, MessageType.LOOKUP);
        FieldCheck.u32("Lookup.volumeId", volumeId);
    }

    @Override
    public MessageType type() {
        return MessageType.LOOKUP;
    }
}
