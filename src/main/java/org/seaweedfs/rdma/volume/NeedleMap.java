package org.seaweedfs.rdma.volume;

import java.util.Arrays;

/**
 * Needle key -> (record offset, Size) for one volume, built for tens of millions of entries: an
 * open-addressing hash table (linear probing, backward-shift deletion) over parallel primitive arrays,
 * 17 bytes per slot, no object per needle. Offsets are kept in 8-byte units over 40 bits (5-byte
 * {@code .idx} offsets fit). An empty slot is marked by size -1, which no live entry has.
 *
 * <p>Not thread-safe: the owner confines it to one thread (or guards it) and publishes copies or
 * increments to other threads.
 */
public final class NeedleMap {

    /** The size reported for a deletion to {@link NeedleEntryConsumer}s. */
    public static final int DELETED = -1;
    /** The largest offset (bytes) a map can hold: 40 bits of 8-byte units. */
    public static final long MAX_OFFSET = ((1L << 40) - 1) * NeedleLayout.ALIGNMENT;

    private static final int EMPTY = -1;
    private static final double MAX_LOAD = 0.8;
    private static final int MAX_CAPACITY = Integer.MAX_VALUE - 8;
    private static final long GOLDEN = 0x9E37_79B9_7F4A_7C15L;

    private long[] keys;
    private int[] offsetLow;
    private byte[] offsetHigh;
    private int[] sizes;
    private int count;
    private int growAt;

    public NeedleMap() {
        this(1024);
    }

    /** A map sized for {@code expected} entries without growing. */
    public NeedleMap(int expected) {
        if (expected < 0) {
            throw new IllegalArgumentException("expected entries must not be negative: " + expected);
        }
        allocate((int) Math.min(MAX_CAPACITY, Math.max(16, (long) Math.ceil(expected / MAX_LOAD) + 1)));
    }

    /** Live entries. */
    public int size() {
        return count;
    }

    /**
     * Applies one {@code .idx} entry with SeaweedFS's replay rule: live ({@link IndexFormat#isLive}) sets the key,
     * anything else deletes it. Returns whether the entry was live.
     */
    public boolean apply(long key, long offset, int size) {
        if (IndexFormat.isLive(offset, size)) {
            put(key, offset, size);
            return true;
        }
        remove(key);
        return false;
    }

    /** Sets key -> (offset in bytes, size). */
    public void put(long key, long offset, int size) {
        if (size < 0) {
            throw new IllegalArgumentException("needle " + Long.toUnsignedString(key) + ": size " + size
                    + " is negative");
        }
        if (offset < 0 || offset > MAX_OFFSET || offset % NeedleLayout.ALIGNMENT != 0) {
            throw new IllegalArgumentException("needle " + Long.toUnsignedString(key) + ": offset " + offset
                    + " is not 8-aligned within 0.." + MAX_OFFSET);
        }
        int slot = probe(key);
        if (sizes[slot] == EMPTY) {
            if (count >= growAt) {
                grow();
                slot = probe(key);
            }
            count++;
            keys[slot] = key;
        }
        long units = offset / NeedleLayout.ALIGNMENT;
        offsetLow[slot] = (int) units;
        offsetHigh[slot] = (byte) (units >>> 32);
        sizes[slot] = size;
    }

    /** Deletes the key; returns whether it was present. */
    public boolean remove(long key) {
        int slot = probe(key);
        if (sizes[slot] == EMPTY) {
            return false;
        }
        shiftBackInto(slot);
        count--;
        return true;
    }

    /** The slot holding {@code key}, or -1. Valid until the next change; read it with the *At methods. */
    public int slotOf(long key) {
        int slot = probe(key);
        return sizes[slot] == EMPTY ? -1 : slot;
    }

    public long keyAt(int slot) {
        return keys[slot];
    }

    /** Offset in bytes of the record in the slot. */
    public long offsetAt(int slot) {
        return (((offsetHigh[slot] & 0xFFL) << 32) | (offsetLow[slot] & 0xFFFF_FFFFL)) * NeedleLayout.ALIGNMENT;
    }

    public int sizeAt(int slot) {
        return sizes[slot];
    }

    public boolean contains(long key) {
        return slotOf(key) >= 0;
    }

    /** Offset in bytes, or -1 when absent. */
    public long offsetOf(long key) {
        int slot = slotOf(key);
        return slot < 0 ? -1 : offsetAt(slot);
    }

    /** Size, or -1 when absent. */
    public int sizeOf(long key) {
        int slot = slotOf(key);
        return slot < 0 ? -1 : sizes[slot];
    }

    /** Visits every live entry, in no particular order. The map must not change meanwhile. */
    public void forEach(NeedleEntryConsumer consumer) {
        for (int slot = 0; slot < sizes.length; slot++) {
            if (sizes[slot] != EMPTY) {
                consumer.accept(keys[slot], offsetAt(slot), sizes[slot]);
            }
        }
    }

    /** Slots allocated (for footprint measurements). */
    public int capacity() {
        return sizes.length;
    }

    private int home(long key, int capacity) {
        // Fibonacci hashing spreads SeaweedFS's sequential keys; multiply-shift maps to any capacity.
        return (int) ((((key * GOLDEN) >>> 32) * capacity) >>> 32);
    }

    /** The slot holding key, or the empty slot where it would go. */
    private int probe(long key) {
        int capacity = sizes.length;
        int slot = home(key, capacity);
        while (sizes[slot] != EMPTY && keys[slot] != key) {
            slot = slot + 1 == capacity ? 0 : slot + 1;
        }
        return slot;
    }

    /** Backward-shift deletion: pulls later entries of the probe run into the hole so no tombstones are needed. */
    private void shiftBackInto(int hole) {
        int capacity = sizes.length;
        int j = hole;
        while (true) {
            j = j + 1 == capacity ? 0 : j + 1;
            if (sizes[j] == EMPTY) {
                break;
            }
            int h = home(keys[j], capacity);
            boolean staysPut = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
            if (!staysPut) {
                keys[hole] = keys[j];
                offsetLow[hole] = offsetLow[j];
                offsetHigh[hole] = offsetHigh[j];
                sizes[hole] = sizes[j];
                hole = j;
            }
        }
        sizes[hole] = EMPTY;
    }

    private void grow() {
        int old = sizes.length;
        if (old == MAX_CAPACITY) {
            throw new IllegalStateException("needle map is full at " + count + " entries");
        }
        long[] oldKeys = keys;
        int[] oldLow = offsetLow;
        byte[] oldHigh = offsetHigh;
        int[] oldSizes = sizes;
        // 1.5x growth keeps the load between ~0.53 and 0.8, i.e. about 21..32 bytes per live entry.
        allocate((int) Math.min(MAX_CAPACITY, old + (old >> 1)));
        for (int i = 0; i < old; i++) {
            if (oldSizes[i] != EMPTY) {
                int slot = probe(oldKeys[i]);
                keys[slot] = oldKeys[i];
                offsetLow[slot] = oldLow[i];
                offsetHigh[slot] = oldHigh[i];
                sizes[slot] = oldSizes[i];
            }
        }
    }

    private void allocate(int capacity) {
        keys = new long[capacity];
        offsetLow = new int[capacity];
        offsetHigh = new byte[capacity];
        sizes = new int[capacity];
        Arrays.fill(sizes, EMPTY);
        growAt = (int) Math.min(capacity - 1L, (long) (capacity * MAX_LOAD));
    }
}
