package org.seaweedfs.rdma.volume;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * CRC-32C of a needle's stored data, fed chunk by chunk (large needles are read in pieces), then judged
 * against the stored value in either of the forms SeaweedFS has written. Not thread-safe.
 */
public final class NeedleChecksum {

    private static final int LEGACY_ADDEND = 0xa282ead8;

    private final CRC32C crc = new CRC32C();

    /**
     * Adds the buffer's remaining bytes; the buffer's position is left as it was (moved and put back rather than
     * read through a duplicate: this runs for every needle served, and the duplicate cost more than the small CRC).
     */
    public NeedleChecksum update(ByteBuffer data) {
        int position = data.position();
        crc.update(data);
        data.position(position);
        return this;
    }

    public NeedleChecksum update(byte[] data, int offset, int length) {
        crc.update(data, offset, length);
        return this;
    }

    public NeedleChecksum reset() {
        crc.reset();
        return this;
    }

    /** The CRC-32C of everything fed so far. */
    public int value() {
        return (int) crc.getValue();
    }

    public CrcState judge(int stored, long size) {
        return judge(value(), stored, size);
    }

    /** The transformed value SeaweedFS wrote before 3.09: {@code ((crc >>> 15) | (crc << 17)) + 0xa282ead8}. */
    public static int legacyForm(int crc) {
        return ((crc >>> 15) | (crc << 17)) + LEGACY_ADDEND;
    }

    /** Judges a stored checksum; a record with Size 0 is never verified. */
    public static CrcState judge(int computed, int stored, long size) {
        if (size == 0) {
            return CrcState.EMPTY;
        }
        if (stored == computed) {
            return CrcState.RAW;
        }
        return stored == legacyForm(computed) ? CrcState.LEGACY : CrcState.BAD;
    }

    public static int of(ByteBuffer data) {
        return new NeedleChecksum().update(data).value();
    }

    public static int of(byte[] data) {
        return new NeedleChecksum().update(data, 0, data.length).value();
    }
}
