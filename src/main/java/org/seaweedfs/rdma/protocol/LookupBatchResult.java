package org.seaweedfs.rdma.protocol;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The answer to a {@link LookupBatch}: one result per id, in the order asked (since version 2).
 *
 * @param results packed results, {@value #RESULT_BYTES} bytes each, big-endian: {@code status u8} (0 found,
 *                1 not found: missing, deleted or wrong cookie, 2 unknown volume) · {@code epoch u64} (the
 *                volume's; 0 for an unknown volume) · {@code offset u64} (8-aligned and at least 8 when found,
 *                else 0) · {@code size u32} (the needle's Size when found, else 0); not copied
 */
public record LookupBatchResult(long requestId, byte[] results) implements ControlMessage {

    public static final int RESULT_BYTES = 21;
    public static final int FOUND = 0;
    public static final int NOT_FOUND = 1;
    public static final int UNKNOWN_VOLUME = 2;

    public LookupBatchResult {
        FieldCheck.requestId("LookupBatchResult", requestId, MessageType.LOOKUP_BATCH_RESULT);
        FieldCheck.bytes("LookupBatchResult.results", results, RESULT_BYTES,
                ProtocolLimits.MAX_LOOKUP_BATCH * RESULT_BYTES);
        if (results.length % RESULT_BYTES != 0) {
            throw FieldCheck.bad("LookupBatchResult.results", "length " + results.length + " is not a multiple of "
                    + RESULT_BYTES);
        }
        ByteBuffer in = ByteBuffer.wrap(results);
        for (int at = 0; at < results.length; at += RESULT_BYTES) {
            int status = in.get(at);
            long offset = in.getLong(at + 9);
            int size = in.getInt(at + 17);
            String field = "LookupBatchResult.results[" + at / RESULT_BYTES + "]";
            if (status == FOUND) {
                if (offset < 8 || offset % 8 != 0) {
                    throw FieldCheck.bad(field, "offset must be a positive multiple of 8, got " + offset);
                }
            } else if (status != NOT_FOUND && status != UNKNOWN_VOLUME) {
                throw FieldCheck.bad(field, "unknown status " + status);
            } else if (offset != 0 || size != 0) {
                throw FieldCheck.bad(field, "offset and size must be 0 when not found");
            }
        }
    }

    /** Writes result {@code i} into {@code out} (sized {@code count * RESULT_BYTES}). */
    public static void put(byte[] out, int i, int status, long epoch, long offset, int size) {
        ByteBuffer.wrap(out).put(i * RESULT_BYTES, (byte) status).putLong(i * RESULT_BYTES + 1, epoch)
                .putLong(i * RESULT_BYTES + 9, offset).putInt(i * RESULT_BYTES + 17, size);
    }

    public int count() {
        return results.length / RESULT_BYTES;
    }

    public int status(int i) {
        return results[i * RESULT_BYTES];
    }

    public long epoch(int i) {
        return ByteBuffer.wrap(results).getLong(i * RESULT_BYTES + 1);
    }

    public long offset(int i) {
        return ByteBuffer.wrap(results).getLong(i * RESULT_BYTES + 9);
    }

    /** The needle's Size as u32. */
    public long size(int i) {
        return Integer.toUnsignedLong(ByteBuffer.wrap(results).getInt(i * RESULT_BYTES + 17));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LookupBatchResult other && requestId == other.requestId
                && Arrays.equals(results, other.results);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(requestId) * 31 + Arrays.hashCode(results);
    }

    @Override
    public String toString() {
        return "LookupBatchResult[requestId=" + Long.toUnsignedString(requestId) + ", count=" + count() + "]";
    }

    @Override
    public MessageType type() {
        return MessageType.LOOKUP_BATCH_RESULT;
    }
}
