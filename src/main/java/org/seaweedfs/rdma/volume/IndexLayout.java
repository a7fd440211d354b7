package org.seaweedfs.rdma.volume;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The geometry of a {@link SortedNeedleIndex} file (layout {@link #VERSION}) as read from its header, for a reader
 * that holds a copy of the header and bucket directory and fetches one bucket's entries at a time: a sidecar reading
 * the agent's exposed index with one-sided gets. Every value is checked against the region it came from, so a
 * corrupt or foreign header is refused; a torn or stale bucket is the caller's to catch (the record it points at
 * carries its own key, cookie, size and CRC).
 *
 * @param length the bytes of the region (the file's length)
 */
public record IndexLayout(long count, long minKey, long buckets, int keyBits, int offsetBits, int sizeBits,
                          int entryBytes, long length) {

    /** The layout version on the wire: the index file's own version. */
    public static final int VERSION = SortedNeedleIndex.VERSION;
    /** Bytes past an entry's start that a field read may touch: fetch this many past a bucket's last entry. */
    public static final int SLACK = 8;

    /**
     * Parses and checks the header at the start of {@code region} (at least {@link SortedNeedleIndex#HEADER} bytes,
     * little-endian or not).
     *
     * @throws VolumeFormatException when it is not an intact layout-1 header of a region of {@code regionLength}
     */
    public static IndexLayout parse(ByteBuffer region, long regionLength, String source) throws VolumeFormatException {
        ByteBuffer h = region.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (h.limit() < SortedNeedleIndex.HEADER) {
            throw new VolumeFormatException(source, 0, "index header", h.limit() + " bytes is too short");
        }
        if (h.getLong(0) != SortedNeedleIndex.MAGIC) {
            throw new VolumeFormatException(source, 0, "magic", "not an agent needle index");
        }
        CRC32C crc = new CRC32C();
        crc.update(h.duplicate().position(0).limit(SortedNeedleIndex.HEADER_CRC_AT));
        if (h.getInt(SortedNeedleIndex.HEADER_CRC_AT) != (int) crc.getValue()) {
            throw new VolumeFormatException(source, 0, "header", "checksum mismatch (corrupt)");
        }
        if (h.getInt(8) != VERSION || h.getInt(12) != SortedNeedleIndex.HEADER) {
            throw new VolumeFormatException(source, 8, "version", "layout " + h.getInt(8) + ", expected " + VERSION);
        }
        long widths = h.getLong(40);
        IndexLayout layout = new IndexLayout(h.getLong(16), h.getLong(24), h.getLong(32), (int) (widths & 0xFF),
                (int) (widths >>> 8 & 0xFF), (int) (widths >>> 16 & 0xFF), (int) (widths >>> 24 & 0xFF),
                h.getLong(72));
        int bits = layout.keyBits + layout.offsetBits + layout.sizeBits;
        if (layout.count < 0 || layout.count > 0xFFFF_FFFFL || layout.buckets < 1
                || layout.buckets > Math.max(1, layout.count) || layout.keyBits > 64 || layout.offsetBits > 40
                || layout.sizeBits > 32 || layout.entryBytes * 8 < bits || layout.entryBytes > 17
                || layout.length != regionLength
                || layout.entriesAt() + layout.count * layout.entryBytes + MappedBytes.OVERLAP != regionLength) {
            throw new VolumeFormatException(source, 16, "geometry", "inconsistent counts and widths");
        }
        return layout;
    }

    /** Where the entries start: the bytes of header and directory, what a reader fetches once. */
    public long entriesAt() {
        return (SortedNeedleIndex.HEADER + (buckets + 1) * 4 + 63) & ~63L;
    }

    /** The bucket that would hold {@code key}, or -1 when the key is outside the file's range. */
    public long bucketOf(long key) {
        if (count == 0 || Long.compareUnsigned(key, minKey) < 0) {
            return -1;
        }
        long bucket = keyBits == 64 ? 0 : (key - minKey) >>> keyBits;
        return Long.compareUnsigned(bucket, buckets) >= 0 ? -1 : bucket;
    }

    /** The number of the first entry of {@code bucket} (0..buckets), from a copy of the header and directory. */
    public long bucketStart(ByteBuffer directory, long bucket) {
        return directory.getInt((int) (SortedNeedleIndex.HEADER + bucket * 4)) & 0xFFFF_FFFFL;
    }

    /**
     * The position of {@code key} among {@code n} entries copied from the file (the first at {@code entries}'s
     * position 0, followed by {@link #SLACK} bytes), or -1. The entries must be one bucket's: only the key's low
     * bits are stored.
     */
    public int find(ByteBuffer entries, int n, long key) {
        long d = key - minKey;
        long want = keyBits == 64 ? d : d & ((1L << keyBits) - 1);
        for (int i = 0; i < n; i++) {
            if (field(entries, i, 0, keyBits) == want) {
                return i;
            }
        }
        return -1;
    }

    /** The record offset (bytes) of copied entry {@code i}; 0 marks an entry withdrawn by its writer. */
    public long offsetAt(ByteBuffer entries, int i) {
        return field(entries, i, keyBits, offsetBits) * NeedleLayout.ALIGNMENT;
    }

    public int sizeAt(ByteBuffer entries, int i) {
        return (int) field(entries, i, keyBits + offsetBits, sizeBits);
    }

    private long field(ByteBuffer entries, int i, int bitAt, int bits) {
        if (bits > 56) {
            return field(entries, i, bitAt, 32) | field(entries, i, bitAt + 32, bits - 32) << 32;
        }
        if (bits == 0) {
            return 0;
        }
        long word = entries.order(ByteOrder.LITTLE_ENDIAN).getLong(i * entryBytes + (bitAt >>> 3));
        return (word >>> (bitAt & 7)) & ((1L << bits) - 1);
    }

    /**
     * Withdraws entry {@code i} of a writable copy of the whole file (header first): zeroes its offset, so a reader
     * of the copy sees either the entry or its withdrawal, never another live location. One 8-byte store; the other
     * bits it rewrites keep their values.
     */
    public void withdraw(ByteBuffer copy, long i) {
        ByteBuffer c = copy.order(ByteOrder.LITTLE_ENDIAN);
        int at = (int) (entriesAt() + i * entryBytes + (keyBits >>> 3));
        long mask = ((1L << offsetBits) - 1) << (keyBits & 7);
        c.putLong(at, c.getLong(at) & ~mask);
    }

    /** Withdraws every entry of a writable copy at once: the copy is being replaced. */
    public void withdrawAll(ByteBuffer copy) {
        ByteBuffer c = copy.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int from = (int) entriesAt();
        int to = (int) (length - MappedBytes.OVERLAP);
        byte[] zeros = new byte[64 * 1024];
        for (int at = from; at < to; at += zeros.length) {
            c.position(at);
            c.put(zeros, 0, Math.min(zeros.length, to - at));
        }
    }
}
