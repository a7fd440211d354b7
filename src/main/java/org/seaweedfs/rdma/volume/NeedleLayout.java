package org.seaweedfs.rdma.volume;

/**
 * Where each part of a needle record sits, from its Size and the volume version; arithmetic only.
 * <pre>
 *   header(16: cookie u32, key u64, size u32) · body(Size) · checksum u32 · [v3: appendAtNs u64] · padding(1..8)
 *   v2/v3 body: dataSize u32 · data · meta (flags u8, then the flagged fields); Size 0 means no body at all
 *   v1 body:    data
 * </pre>
 * Positions returned are relative to the record's first byte.
 */
public final class NeedleLayout {

    public static final int HEADER_SIZE = 16;
    public static final int DATA_SIZE_FIELD = 4;
    public static final int CHECKSUM_SIZE = 4;
    public static final int TIMESTAMP_SIZE = 8;
    public static final int ALIGNMENT = 8;
    public static final int LAST_MODIFIED_SIZE = 5;
    /** The longest meta a writer can produce: flags, name, mime, last-modified, ttl, pairs. */
    public static final int MAX_META_LENGTH = 1 + (1 + 255) + (1 + 255) + LAST_MODIFIED_SIZE + 2 + (2 + 0xFFFF);
    /** Size is a u32 on disk. */
    public static final long MAX_SIZE = 0xFFFF_FFFFL;

    private NeedleLayout() {
    }

    /** Checksum plus, for version 3, the append timestamp. */
    public static int tailLength(int version) {
        return version == SuperBlock.VERSION_3 ? CHECKSUM_SIZE + TIMESTAMP_SIZE : CHECKSUM_SIZE;
    }

    /** Always 1..8 bytes, never 0 (SeaweedFS's PaddingLength). */
    public static int padding(long size, int version) {
        return ALIGNMENT - (int) ((HEADER_SIZE + size + tailLength(version)) % ALIGNMENT);
    }

    /** Bytes from the record's start to the next record's start. */
    public static long recordLength(long size, int version) {
        return HEADER_SIZE + size + tailLength(version) + padding(size, version);
    }

    /** Bytes that must be present to parse a record: everything but the padding. */
    public static long usedLength(long size, int version) {
        return HEADER_SIZE + size + tailLength(version);
    }

    /** Where the data starts: right after the header (v1, or an empty v2/3 body) or after dataSize. */
    public static int dataStart(long size, int version) {
        return version == SuperBlock.VERSION_1 || size == 0 ? HEADER_SIZE : HEADER_SIZE + DATA_SIZE_FIELD;
    }

    /** Where the data ends (exclusive), given its length (v1: Size; v2/3: the dataSize field). */
    public static long dataEnd(long size, int version, long dataLength) {
        return dataStart(size, version) + dataLength;
    }

    /** Length of the meta part (flags and flagged fields) between the data and the checksum. */
    public static long metaLength(long size, int version, long dataLength) {
        return HEADER_SIZE + size - dataEnd(size, version, dataLength);
    }

    /** Where the checksum sits; the meta part ends here. */
    public static long checksumPosition(long size) {
        return HEADER_SIZE + size;
    }

    /** Validates a v2/v3 dataSize field against the record's (non-zero) Size. */
    public static void checkDataSize(long dataSize, long size, String source, long recordOffset) {
        if (size < DATA_SIZE_FIELD) {
            throw new VolumeFormatException(source, recordOffset, "size", size + " is too small to hold dataSize");
        }
        if (dataSize > size - DATA_SIZE_FIELD) {
            throw new VolumeFormatException(source, recordOffset, "dataSize",
                    dataSize + " does not fit in the record's body of " + size + " bytes");
        }
        long meta = size - DATA_SIZE_FIELD - dataSize;
        if (meta > MAX_META_LENGTH) {
            throw new VolumeFormatException(source, recordOffset, "dataSize",
                    dataSize + " leaves " + meta + " bytes of meta, more than the " + MAX_META_LENGTH
                            + " any writer produces");
        }
    }
}
