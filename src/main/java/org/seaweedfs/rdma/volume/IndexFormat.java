package org.seaweedfs.rdma.volume;

import java.nio.ByteBuffer;

/**
 * The two {@code .idx} entry layouts. Offsets are stored in units of 8 bytes; the 5-byte form (SeaweedFS
 * builds for volumes over 32 GiB) adds an offset high byte. Which one a file uses cannot be guessed, so
 * it is a setting. Replay rule: offset 0, or a size that is negative as an i32 (0xFFFFFFFF included),
 * deletes the key; anything else sets it, size 0 included (live but without readable data).
 */
public enum IndexFormat {
    /** key u64 · offset u32 · size u32. */
    OFFSET4(16, 32),
    /** key u64 · offset low u32 · offset high u8 · size u32. */
    OFFSET5(17, 40);

    /** Size written for a deletion. */
    public static final int TOMBSTONE_SIZE = 0xFFFF_FFFF;

    private final int entrySize;
    private final long maxUnits;

    IndexFormat(int entrySize, int offsetBits) {
        this.entrySize = entrySize;
        this.maxUnits = (1L << offsetBits) - 1;
    }

    public static IndexFormat of(boolean offset5) {
        return offset5 ? OFFSET5 : OFFSET4;
    }

    public int entrySize() {
        return entrySize;
    }

    /** The largest record offset, in bytes, this layout can address. */
    public long maxOffset() {
        return maxUnits * NeedleLayout.ALIGNMENT;
    }

    public long key(ByteBuffer buf, int pos) {
        return buf.getLong(pos);
    }

    /** The entry's offset in bytes. */
    public long offset(ByteBuffer buf, int pos) {
        long units = buf.getInt(pos + 8) & 0xFFFF_FFFFL;
        if (this == OFFSET5) {
            units |= (buf.get(pos + 12) & 0xFFL) << 32;
        }
        return units * NeedleLayout.ALIGNMENT;
    }

    /** The raw size field (an i32: negative means deleted). */
    public int size(ByteBuffer buf, int pos) {
        return buf.getInt(pos + entrySize - 4);
    }

    public static boolean isLive(long offset, int size) {
        return offset != 0 && size >= 0;
    }

    /** Appends one entry at the buffer's position. {@code offset} is in bytes and must be 8-aligned. */
    public void put(ByteBuffer into, long key, long offset, int size) {
        if (offset < 0 || offset % NeedleLayout.ALIGNMENT != 0 || offset > maxOffset()) {
            throw new IllegalArgumentException("offset " + offset + " is not an 8-aligned offset within " + this
                    + " (max " + maxOffset() + ")");
        }
        long units = offset / NeedleLayout.ALIGNMENT;
        into.putLong(key).putInt((int) units);
        if (this == OFFSET5) {
            into.put((byte) (units >>> 32));
        }
        into.putInt(size);
    }
}
