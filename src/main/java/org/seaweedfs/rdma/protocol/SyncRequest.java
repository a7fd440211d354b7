package org.seaweedfs.rdma.protocol;

/**
 * Asks for the needle-map entries of a volume's .idx from a byte position; answered by one {@link SyncEntries}
 * (with {@code more} set when the sidecar should ask again from its toPosition) or ErrorReply STALE_EPOCH /
 * UNKNOWN_VOLUME.
 *
 * @param epoch        the epoch the sidecar's mirror belongs to; 0 (with fromPosition 0) means "the current one"
 * @param fromPosition byte position in the .idx; 0 asks for a full sync
 */
public record SyncRequest(long requestId, long volumeId, long epoch, long fromPosition) implements ControlMessage {
    public SyncRequest {
        FieldCheck.requestId("SyncRequest", requestId, MessageType.SYNC_REQUEST);
        FieldCheck.u32("SyncRequest.volumeId", volumeId);
        FieldCheck.nonNegative("SyncRequest.fromPosition", fromPosition);
        if (epoch == 0 && fromPosition != 0) {
            throw FieldCheck.bad("SyncRequest.epoch", "0 (current) is only allowed for a full sync");
        }
    }

    @Override
    public MessageType type() {
        return MessageType.SYNC_REQUEST;
    }
}
