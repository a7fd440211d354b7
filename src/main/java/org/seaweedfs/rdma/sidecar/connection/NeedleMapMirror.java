package org.seaweedfs.rdma.sidecar.connection;

import io.vertx.core.Context;
import java.util.concurrent.locks.StampedLock;
import org.seaweedfs.rdma.protocol.SyncEntryReader;
import org.seaweedfs.rdma.volume.NeedleMap;

/**
 * The sidecar's copy of one volume's needle map at one epoch, fed by the agent's sync entries.
 *
 * <p>Threads: any number of readers ({@link #find}) and one writer ({@link #apply}, {@link #markSynced}) at a
 * time. Readers take a {@link StampedLock} optimistic read over the {@link NeedleMap} and retry under the read
 * lock when a write intervened (a torn read is then discarded, whatever it returned or threw). The map is never
 * grown in place: the writer builds a larger copy off-lock and swaps it in, so a reader cannot race a resize.
 * The writer applies entries in small batches so readers never wait long for the write lock. Writes are O(entries)
 * (and a growth copies the whole map), so they run off the event loop: {@link #apply} refuses an event-loop thread.
 */
public final class NeedleMapMirror {

    /** Entries applied per write-lock hold. */
    private static final int BATCH = 1024;

    private final long volumeId;
    private final long epoch;
    private final StampedLock lock = new StampedLock();
    private volatile NeedleMap map;
    private volatile long position;
    private volatile boolean synced;
    /** Live entries the current map takes without growing (writer only). */
    private int room;

    /** @param expectedEntries a sizing hint (e.g. the {@code .idx} length / its entry width) */
    public NeedleMapMirror(long volumeId, long epoch, int expectedEntries) {
        if (expectedEntries < 0) {
            throw new IllegalArgumentException("expected entries must not be negative: " + expectedEntries);
        }
        this.volumeId = volumeId;
        this.epoch = epoch;
        this.room = Math.max(1024, expectedEntries);
        this.map = new NeedleMap(room);
    }

    public long volumeId() {
        return volumeId;
    }

    public long epoch() {
        return epoch;
    }

    /** Bytes of the agent's {@code .idx} applied so far (where the next sync continues). */
    public long position() {
        return position;
    }

    /** True once a full sync reached the end of the agent's index (a miss may still be a very new needle). */
    public boolean isSynced() {
        return synced;
    }

    public void markSynced() {
        synced = true;
    }

    /** Slots of the current map (it grows as entries arrive), for tests and diagnostics. */
    int capacity() {
        return map.capacity();
    }

    /** Live entries. */
    public int size() {
        long stamp = lock.readLock();
        try {
            return map.size();
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** The needle's location, or null when the mirror does not hold the key. Safe from any thread. */
    public NeedleLocation find(long key) {
        long stamp = lock.tryOptimisticRead();
        if (stamp != 0) {
            try {
                NeedleLocation found = lookup(map, key);
                if (lock.validate(stamp)) {
                    return found;
                }
            } catch (RuntimeException tornByAWrite) {
                // a concurrent write moved entries under us; the locked read below is authoritative
            }
        }
        stamp = lock.readLock();
        try {
            return lookup(map, key);
        } finally {
            lock.unlockRead(stamp);
        }
    }

    private static NeedleLocation lookup(NeedleMap m, long key) {
        int slot = m.slotOf(key);
        return slot < 0 ? null : new NeedleLocation(m.offsetAt(slot), m.sizeAt(slot) & 0xFFFF_FFFFL);
    }

    /**
     * Writer only: applies {@code count} packed entries covering {@code .idx} bytes {@code [from, to)} with
     * SeaweedFS's replay rule. The caller checks that {@code from} is this mirror's {@link #position()}.
     *
     * @throws IllegalArgumentException when an entry is not storable (an offset that is not 8-aligned); the
     *                                  entries before it stay applied and the position does not move
     */
    public void apply(long from, long to, SyncEntryReader entries, int count) {
        if (Context.isOnEventLoopThread()) {
            // O(count) work, plus a copy of the whole map when it grows: millions of entries on a big volume
            throw new IllegalStateException("volume " + volumeId + ": a mirror is written off the event loop "
                    + "(a worker thread), never on it");
        }
        if (from != position || to < from) {
            throw new IllegalArgumentException("volume " + volumeId + ": entries for [" + from + ", " + to
                    + ") do not continue the mirror at " + position);
        }
        ensureRoom(count);
        NeedleMap m = map;
        boolean more = entries.next();
        while (more) {
            long stamp = lock.writeLock();
            try {
                for (int i = 0; i < BATCH && more; i++) {
                    m.apply(entries.key(), entries.offset(), entries.size());
                    more = entries.next();
                }
            } finally {
                lock.unlockWrite(stamp);
            }
        }
        position = to;
    }

    /** Swaps in a copy with room for {@code incoming} more entries if the live map could otherwise grow in place. */
    private void ensureRoom(int incoming) {
        NeedleMap current = map;
        long needed = (long) current.size() + incoming;
        if (needed <= room) {
            return;
        }
        int newRoom = (int) Math.min(Integer.MAX_VALUE / 2, Math.max(needed, 2L * room));
        NeedleMap bigger = new NeedleMap(newRoom);
        // Only this (writer) thread changes the map, so copying it without the lock is safe.
        current.forEach(bigger::put);
        long stamp = lock.writeLock();
        try {
            map = bigger;
        } finally {
            lock.unlockWrite(stamp);
        }
        room = newRoom;
    }
}
