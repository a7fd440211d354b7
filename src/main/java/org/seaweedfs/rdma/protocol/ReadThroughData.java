package org.seaweedfs.rdma.protocol;

import java.util.Arrays;

/**
 * The bytes of a {@link ReadThrough}: {@code bytes} start at {@code offset} within the record; fewer than asked
 * only when the record ends first.
 *
 * @param epoch the volume epoch the bytes were read under
 * @param bytes not copied
 */
public record ReadThroughData(long requestId, long epoch, long offset, byte[] bytes) implements ControlMessage {
    public ReadThroughData {
        FieldCheck.requestId("ReadThroughData", requestId, MessageType.READ_THROUGH_DATA);
        FieldCheck.nonNegative("ReadThroughData.offset", offset);
        FieldCheck.bytes("ReadThroughData.bytes", bytes, 0, Integer.MAX_VALUE);
    }

    @Override
    public MessageType type() {
        return MessageType.READ_THROUGH_DATA;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReadThroughData r && requestId == r.requestId && epoch == r.epoch && offset == r.offset
                && Arrays.equals(bytes, r.bytes);
    }

    @Override
    public int hashCode() {
        return (Long.hashCode(requestId) * 31 + Long.hashCode(offset)) * 31 + Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "ReadThroughData[requestId=" + Long.toUnsignedString(requestId) + ", epoch="
                + Long.toUnsignedString(epoch) + ", offset=" + offset + ", bytes=" + bytes.length + "]";
    }
}
