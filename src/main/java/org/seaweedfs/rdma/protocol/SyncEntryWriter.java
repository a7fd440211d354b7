package org.seaweedfs.rdma.protocol;

import java.util.Arrays;

/**
 * Packs needle-map entries for {@link SyncEntries}, up to a capacity (use
 * {@link ControlCodec#maxSyncEntriesPerFrame()} so the result fits one frame). Reusable: {@link #toMessage}
 * takes the packed bytes and empties the writer.
 */
public final class SyncEntryWriter {
    private final int capacity;
    private byte[] packed;
    private int count;

    public SyncEntryWriter(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive, got " + capacity);
        }
        this.capacity = capacity;
        this.packed = new byte[Math.min(capacity, 1024) * SyncEntryReader.ENTRY_BYTES];
    }

    /**
     * Adds one entry.
     *
     * @param offset byte offset of the record in the .dat (0 for a deletion)
     * @param size   the .idx size bits (see {@link SyncEntryReader#size()})
     * @return false, adding nothing, when the writer is full
     */
    public boolean append(long key, long offset, int size) {
        if (count == capacity) {
            return false;
        }
        int at = count * SyncEntryReader.ENTRY_BYTES;
        if (at + SyncEntryReader.ENTRY_BYTES > packed.length) {
            packed = Arrays.copyOf(packed, (int) Math.min((long) capacity * SyncEntryReader.ENTRY_BYTES,
                    2L * packed.length));
        }
        SyncEntryReader.LONG.set(packed, at, key);
        SyncEntryReader.LONG.set(packed, at + 8, offset);
        SyncEntryReader.INT.set(packed, at + 16, size);
        count++;
        return true;
    }

    public int count() {
        return count;
    }

    public boolean isFull() {
        return count == capacity;
    }

    /** The packed entries so far (a copy) without emptying the writer. */
    public byte[] toPacked() {
        return Arrays.copyOf(packed, count * SyncEntryReader.ENTRY_BYTES);
    }

    /** A SyncEntries of the entries so far, then empties the writer for the next frame. */
    public SyncEntries toMessage(long requestId, long volumeId, long epoch, long fromPosition, long toPosition,
                                 boolean more) {
        SyncEntries message = new SyncEntries(requestId, volumeId, epoch, fromPosition, toPosition, more, toPacked());
        count = 0;
        return message;
    }
}
