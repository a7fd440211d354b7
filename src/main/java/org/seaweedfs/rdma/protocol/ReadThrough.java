package org.seaweedfs.rdma.protocol;

/**
 * The degraded read: the agent reads {@code length} bytes at {@code offset} within the needle's record and sends
 * them in {@link ReadThroughData}. Errors: NOT_FOUND (missing, deleted, wrong cookie), UNKNOWN_VOLUME, BAD_REQUEST
 * (range outside the record), TOO_LARGE (length above {@link ControlCodec#maxReadThroughBytes()}).
 *
 * @param offset bytes from the start of the record (0 = the record header)
 * @param length bytes wanted (positive)
 */
public record ReadThrough(long requestId, long volumeId, long key, int cookie, long offset, int length)
        implements ControlMessage {
    public ReadThrough {
        FieldCheck.requestId("ReadThrough", requestId, MessageType.READ_THROUGH);
        FieldCheck.u32("ReadThrough.volumeId", volumeId);
        FieldCheck.nonNegative("ReadThrough.offset", offset);
        FieldCheck.range("ReadThrough.length", length, 1, Integer.MAX_VALUE);
    }

    @Override
    public MessageType type() {
        return MessageType.READ_THROUGH;
    }
}
