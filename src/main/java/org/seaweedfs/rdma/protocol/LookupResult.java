package org.seaweedfs.rdma.protocol;

/**
 * Where a needle's record is, or that it is not there (missing, deleted or wrong cookie: a normal answer).
 *
 * @param epoch      the volume epoch the answer belongs to
 * @param offset     byte offset of the record in the .dat (8-aligned); 0 when not found
 * @param recordSize bytes of the whole record: header, body, checksum, v3 timestamp and padding (a multiple of 8,
 *                   more than size + 20); 0 when not found
 * @param size       the needle's Size (u32, the body length); 0 when not found
 */
public record LookupResult(long requestId, boolean found, long epoch, long offset, long recordSize, long size)
        implements ControlMessage {
    public LookupResult {
        FieldCheck.requestId("LookupResult", requestId, MessageType.LOOKUP_RESULT);
        if (found) {
            FieldCheck.range("LookupResult.offset", offset, 8, Long.MAX_VALUE);
            if (offset % 8 != 0) {
                throw FieldCheck.bad("LookupResult.offset", "must be a multiple of 8, got " + offset);
            }
            FieldCheck.u32("LookupResult.size", size);
            FieldCheck.range("LookupResult.recordSize", recordSize, size + 21, Long.MAX_VALUE - offset);
            if (recordSize % 8 != 0) {
                throw FieldCheck.bad("LookupResult.recordSize", "must be a multiple of 8, got " + recordSize);
            }
        } else if (offset != 0 || recordSize != 0 || size != 0) {
            throw FieldCheck.bad("LookupResult", "offset, recordSize and size must be 0 when not found");
        }
    }

    public static LookupResult notFound(long requestId, long epoch) {
        return new LookupResult(requestId, false, epoch, 0, 0, 0);
    }

    @Override
    public MessageType type() {
        return MessageType.LOOKUP_RESULT;
    }
}
