package org.seaweedfs.rdma.volume;

import java.nio.ByteBuffer;

/**
 * A parsed needle record held in a ByteBuffer (heap or direct). Parsing uses absolute reads and copies
 * nothing: {@link #data()} is a slice of the caller's buffer, valid as long as that buffer is.
 */
public final class NeedleRecord {

    private final ByteBuffer buffer;
    private final int version;
    private final NeedleHeader header;
    private final int dataPosition;
    private final int dataLength;
    private final NeedleTail tail;

    private NeedleRecord(ByteBuffer buffer, int version, NeedleHeader header, int dataPosition, int dataLength,
            NeedleTail tail) {
        this.buffer = buffer;
        this.version = version;
        this.header = header;
        this.dataPosition = dataPosition;
        this.dataLength = dataLength;
        this.tail = tail;
    }

    /**
     * Parses the record starting at {@code pos}. The buffer must hold the record up to its checksum (and
     * timestamp for version 3); padding may be absent. {@code source} and {@code recordOffset} only name
     * the record in error messages.
     */
    public static NeedleRecord parse(ByteBuffer buf, int pos, int version, String source, long recordOffset) {
        SuperBlock.checkVersion(version, source, recordOffset);
        NeedleHeader header = NeedleHeader.parse(buf, pos, source, recordOffset);
        long size = header.size();
        header.checkFits((long) buf.limit() - pos, version, source, recordOffset);
        long dataLength = size;
        if (version != SuperBlock.VERSION_1 && size > 0) {
            dataLength = buf.getInt(pos + NeedleLayout.HEADER_SIZE) & 0xFFFF_FFFFL;
            NeedleLayout.checkDataSize(dataLength, size, source, recordOffset);
        }
        int dataPosition = pos + NeedleLayout.dataStart(size, version);
        int metaLength = (int) NeedleLayout.metaLength(size, version, dataLength);
        NeedleTail tail =
                NeedleTail.parse(buf, dataPosition + (int) dataLength, metaLength, version, source, recordOffset);
        return new NeedleRecord(buf, version, header, dataPosition, (int) dataLength, tail);
    }

    public NeedleHeader header() {
        return header;
    }

    public long key() {
        return header.key();
    }

    public int cookie() {
        return header.cookie();
    }

    /** The record's Size field (body length). */
    public long size() {
        return header.size();
    }

    public int version() {
        return version;
    }

    /** The stored data (compressed bytes when compressed) as a slice of the parsed buffer; no copy. */
    public ByteBuffer data() {
        return buffer.slice(dataPosition, dataLength);
    }

    /** Absolute position of the data in the parsed buffer. */
    public int dataPosition() {
        return dataPosition;
    }

    public int dataLength() {
        return dataLength;
    }

    public NeedleTail tail() {
        return tail;
    }

    public NeedleMeta meta() {
        return tail.meta();
    }

    public long recordLength() {
        return NeedleLayout.recordLength(size(), version);
    }

    /** CRC-32C of the stored data. */
    public int computeCrc() {
        return NeedleChecksum.of(data());
    }

    /** Verifies the stored checksum against the data. */
    public CrcState verify() {
        return NeedleChecksum.judge(computeCrc(), tail.checksum(), size());
    }

    public boolean expiredAt(long nowMillis) {
        return tail.expiredAt(version, nowMillis);
    }
}
