package org.seaweedfs.rdma.protocol;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Asks where many needles' records are, in one frame (since version 2): the sidecar's location cache missed them.
 * Answered by one {@link LookupBatchResult} with a result per id, in the same order.
 *
 * @param ids packed ids, {@value #ID_BYTES} bytes each, big-endian: {@code volumeId u32 · cookie u32 · key u64};
 *            1 to {@link ProtocolLimits#MAX_LOOKUP_BATCH} of them; not copied
 */
public record LookupBatch(long requestId, byte[] ids) implements ControlMessage {

    public static final int ID_BYTES = 16;

    public LookupBatch {
        FieldCheck.requestId("LookupBatch", requestId, MessageType.LOOKUP_BATCH);
        FieldCheck.bytes("LookupBatch.ids", ids, ID_BYTES, ProtocolLimits.MAX_LOOKUP_BATCH * ID_BYTES);
        if (ids.length % ID_BYTES != 0) {
            throw FieldCheck.bad("LookupBatch.ids", "length " + ids.length + " is not a multiple of " + ID_BYTES);
        }
    }

    /** Packs ids for a batch: {@code volumeIds[i], keys[i], cookies[i]} for i below {@code count}. */
    public static byte[] pack(long[] volumeIds, long[] keys, int[] cookies, int count) {
        ByteBuffer out = ByteBuffer.allocate(count * ID_BYTES);
        for (int i = 0; i < count; i++) {
            FieldCheck.u32("LookupBatch.volumeId", volumeIds[i]);
            out.putInt((int) volumeIds[i]).putInt(cookies[i]).putLong(keys[i]);
        }
        return out.array();
    }

    public int count() {
        return ids.length / ID_BYTES;
    }

    public long volumeId(int i) {
        return Integer.toUnsignedLong(ByteBuffer.wrap(ids).getInt(i * ID_BYTES));
    }

    public int cookie(int i) {
        return ByteBuffer.wrap(ids).getInt(i * ID_BYTES + 4);
    }

    public long key(int i) {
        return ByteBuffer.wrap(ids).getLong(i * ID_BYTES + 8);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LookupBatch other && requestId == other.requestId && Arrays.equals(ids, other.ids);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(requestId) * 31 + Arrays.hashCode(ids);
    }

    @Override
    public String toString() {
        return "LookupBatch[requestId=" + Long.toUnsignedString(requestId) + ", count=" + count() + "]";
    }

    @Override
    public MessageType type() {
        return MessageType.LOOKUP_BATCH;
    }
}
