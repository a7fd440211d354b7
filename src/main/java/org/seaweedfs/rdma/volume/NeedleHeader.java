package org.seaweedfs.rdma.volume;

import java.nio.ByteBuffer;

/** The 16 bytes that open every needle record. {@code size} is the unsigned body length (Size). */
public record NeedleHeader(int cookie, long key, long size) {

    /** Parses the header at {@code pos} with absolute reads; the buffer's position is not changed. */
    public static NeedleHeader parse(ByteBuffer buf, int pos, String source, long recordOffset) {
        if (pos < 0 || buf.limit() - pos < NeedleLayout.HEADER_SIZE) {
            throw new VolumeFormatException(source, recordOffset, "needle header",
                    "needs " + NeedleLayout.HEADER_SIZE + " bytes, " + Math.max(0, buf.limit() - pos) + " available");
        }
        return new NeedleHeader(buf.getInt(pos), buf.getLong(pos + 4), buf.getInt(pos + 12) & 0xFFFF_FFFFL);
    }

    /**
     * Checks that the record this header opens fits in {@code available} bytes (from the record's start),
     * so a corrupt Size is reported instead of allocated or looped over.
     */
    public void checkFits(long available, int version, String source, long recordOffset) {
        long used = NeedleLayout.usedLength(size, version);
        if (used > available) {
            throw new VolumeFormatException(source, recordOffset, "size",
                    size + " needs a record of " + used + " bytes but only " + available + " remain");
        }
    }

    public FileId fileId(long volumeId) {
        return new FileId(volumeId, key, cookie);
    }
}
