package org.seaweedfs.rdma.volume;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.locks.StampedLock;

/**
 * The entries a volume gained since its {@link SortedNeedleIndex} was written: an open-addressing hash table
 * (linear probing, power-of-two capacity, at most 70 % full) of 24-byte slots in scratch mapped memory. Slot: key
 * u64; state u64 (0 = empty, else {@link #USED}, {@link #DELETED} for a tombstone, and the offset in 8-byte units
 * in the low 40 bits); size i32. Entries are only added or changed, never removed (a deletion is a tombstone that
 * hides the sorted index's entry), so no probe run ever breaks.
 *
 * <p><b>One writer, any number of readers.</b> The writer changes slots (and swaps in a grown table) only while it
 * holds the {@link StampedLock}'s write lock. Readers never lock: they take an optimistic stamp, read the table
 * reference and probe, then {@link StampedLock#validate validate}; validate succeeds only if no write lock was taken
 * since the stamp, and it orders the reads before it (a load fence), so a validated probe saw one state of the table
 * between two writes. A probe that raced a write may have read garbage: it is thrown away and retried. Probes are
 * bounded by the capacity of the table they read, whose fields are final, so garbage never indexes out of range. A
 * table the writer replaced is unmapped at once when every reader runs on the writer's thread, else left to the
 * garbage collector, which unmaps it once no reader can hold it.
 */
final class NeedleOverlay {

    static final int ABSENT = 0;
    static final int LIVE = 1;
    static final int TOMBSTONE = 2;

    private static final int SLOT = 24;
    private static final long USED = 1L << 63;
    private static final long DELETED = 1L << 62;
    private static final long UNITS = (1L << 40) - 1;
    private static final long GOLDEN = 0x9E37_79B9_7F4A_7C15L;
    private static final int OPTIMISTIC_TRIES = 8;

    private record Table(MappedBytes slots, int bits, long capacity) {
    }

    private final Path scratchDir;
    private final boolean releaseAtOnce;
    private final StampedLock lock = new StampedLock();
    private Table table;
    private long count;

    NeedleOverlay(Path scratchDir, long expected, boolean releaseAtOnce) throws IOException {
        this.scratchDir = scratchDir;
        this.releaseAtOnce = releaseAtOnce;
        this.table = allocate(scratchDir, expected);
    }

    private static Table allocate(Path dir, long expected) throws IOException {
        int bits = Math.max(8, 64 - Long.numberOfLeadingZeros(Math.max(1, expected * 10 / 7)));
        long capacity = 1L << bits;
        return new Table(MappedBytes.scratch(dir, capacity * SLOT), bits, capacity);
    }

    /** Slots in use (live entries and tombstones). Writer only. */
    long count() {
        return count;
    }

    /** Bytes of mapped memory held. Writer only. */
    long bytes() {
        return table.capacity() * SLOT;
    }

    /**
     * Looks {@code key} up: {@link #ABSENT}, {@link #TOMBSTONE}, or {@link #LIVE} with {@code hit} filled. Any thread.
     */
    int find(long key, NeedleIndex.Hit hit) {
        for (int tries = 0; ; tries++) {
            long stamp = tries < OPTIMISTIC_TRIES ? lock.tryOptimisticRead() : lock.readLock();
            try {
                int state = probe(table, key, hit);
                if (tries >= OPTIMISTIC_TRIES || lock.validate(stamp)) {
                    return state;
                }
            } finally {
                if (tries >= OPTIMISTIC_TRIES) {
                    lock.unlockRead(stamp);
                }
            }
        }
    }

    private static int probe(Table t, long key, NeedleIndex.Hit hit) {
        long mask = t.capacity() - 1;
        long slot = home(key, t.bits());
        for (long n = 0; n < t.capacity(); n++, slot = (slot + 1) & mask) {
            long at = slot * SLOT;
            long state = t.slots().getLong(at + 8);
            if (state == 0) {
                return ABSENT;
            }
            if (t.slots().getLong(at) == key) {
                if ((state & DELETED) != 0) {
                    return TOMBSTONE;
                }
                hit.set((state & UNITS) * NeedleLayout.ALIGNMENT, t.slots().getInt(at + 16));
                return LIVE;
            }
        }
        return ABSENT;
    }

    /** Sets key to a live entry. Writer only. */
    void put(long key, long offset, int size) throws IOException {
        set(key, USED | offset / NeedleLayout.ALIGNMENT, size);
    }

    /** Marks key deleted. Writer only. */
    void delete(long key) throws IOException {
        set(key, USED | DELETED, -1);
    }

    private void set(long key, long state, int size) throws IOException {
        if (count + 1 > table.capacity() * 7 / 10) {
            Table old = table;
            Table grown = allocate(scratchDir, count * 2);
            copyInto(old, grown);
            long stamp = lock.writeLock();
            table = grown;
            lock.unlockWrite(stamp);
            if (releaseAtOnce) {
                old.slots().close();
            }
        }
        Table t = table;
        long mask = t.capacity() - 1;
        long slot = home(key, t.bits());
        while (true) {
            long at = slot * SLOT;
            long was = t.slots().getLong(at + 8);
            if (was == 0 || t.slots().getLong(at) == key) {
                long stamp = lock.writeLock();
                t.slots().putLong(at, key);
                t.slots().putInt(at + 16, size);
                t.slots().putLong(at + 8, state);
                lock.unlockWrite(stamp);
                if (was == 0) {
                    count++;
                }
                return;
            }
            slot = (slot + 1) & mask;
        }
    }

    private static void copyInto(Table from, Table to) {
        long mask = to.capacity() - 1;
        for (long i = 0; i < from.capacity(); i++) {
            long at = i * SLOT;
            long state = from.slots().getLong(at + 8);
            if (state == 0) {
                continue;
            }
            long key = from.slots().getLong(at);
            long slot = home(key, to.bits());
            while (to.slots().getLong(slot * SLOT + 8) != 0) {
                slot = (slot + 1) & mask;
            }
            long dst = slot * SLOT;
            to.slots().putLong(dst, key);
            to.slots().putLong(dst + 8, state);
            to.slots().putInt(dst + 16, from.slots().getInt(at + 16));
        }
    }

    /** Copies every slot (tombstones with size -1) into {@code into}. Writer only. */
    void copyTo(NeedleRecords into) {
        Table t = table;
        for (long i = 0; i < t.capacity(); i++) {
            long at = i * SLOT;
            long state = t.slots().getLong(at + 8);
            if (state != 0) {
                boolean deleted = (state & DELETED) != 0;
                into.add(t.slots().getLong(at), deleted ? 0 : state & UNITS, deleted ? -1 : t.slots().getInt(at + 16));
            }
        }
    }

    /** Visits the key of every slot (tombstones included). Writer only. */
    void forEachKey(java.util.function.LongConsumer action) {
        Table t = table;
        for (long i = 0; i < t.capacity(); i++) {
            long at = i * SLOT;
            if (t.slots().getLong(at + 8) != 0) {
                action.accept(t.slots().getLong(at));
            }
        }
    }

    /** Unmaps the table now. Writer only, with no lookup running or to come. */
    void close() {
        table.slots().close();
    }

    private static long home(long key, int bits) {
        return (key * GOLDEN) >>> (64 - bits);
    }
}
