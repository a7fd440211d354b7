package org.seaweedfs.rdma.volume;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A volume's needle index for a long-running follower: key -> (record offset, size), off the Java heap. Two parts:
 * an immutable {@link SortedNeedleIndex} file (bit-packed, no free slots: the bulk of the needles at well under 16
 * bytes each) and a {@link NeedleOverlay} hash table of what changed since it was written (appends, overwrites,
 * deletions as tombstones), looked up first. When the overlay outgrows {@code max(minOverlay, sorted/32)} entries,
 * {@link #merge} writes a new sorted file of both (a sequential pass) and starts an empty overlay, so the overlay's
 * 34-69 bytes per entry cost at most about 2 bytes per needle of a large volume, and a restart maps the last file
 * and replays only the {@code .idx} written since ({@link SortedNeedleIndex.Stamp} says up to where it reflects the
 * {@code .idx}). A merge of a volume of n needles costs one pass over its file, once every n/32 changes.
 *
 * <p><b>Threads.</b> One writer ({@link #apply}, {@link #merge}, {@link #close}); {@link #find} and {@link #size}
 * from any thread. The pair (sorted file, overlay) is an immutable {@code View} published through a volatile field:
 * a reader reads it once per lookup, so it never mixes one merge's file with another's overlay. A merge finishes the
 * new file (plain stores to its mapping) before the volatile write that publishes it, so a reader that sees the new
 * view sees the whole file (happens-before through the volatile); the old view stays intact for readers still in it
 * (its overlay is no longer written). With {@link Readers#ANY_THREAD} the garbage collector unmaps it once no reader
 * can hold it; with {@link Readers#WRITER_THREAD} no reader can be inside it once the writer returns, so it is
 * unmapped at once (and so are the overlay's outgrown tables): its memory is not left waiting for a collection
 * that a small, quiet heap may not make for hours. Within one view the
 * overlay's own argument applies (see {@link NeedleOverlay}). A lookup racing an {@link #apply} sees the index
 * before or after that entry, never a mix of two entries' fields. {@link #close} unmaps at once: no lookup may run
 * concurrently with it or after it.
 */
public final class NeedleIndex implements Closeable {

    /** A found needle, filled by {@link #find}: reuse one per thread to look up without allocating. */
    public static final class Hit {
        private long offset;
        private int size;

        void set(long offset, int size) {
            this.offset = offset;
            this.size = size;
        }

        /** Offset of the record in the {@code .dat}, in bytes. */
        public long offset() {
            return offset;
        }

        /** The needle's Size (0 included: an empty file). */
        public int size() {
            return size;
        }
    }

    /** Which threads look needles up. */
    public enum Readers {
        /** Only the writer's thread: what the writer replaces is unmapped at once. */
        WRITER_THREAD,
        /** Any thread: what the writer replaces is unmapped by the garbage collector. */
        ANY_THREAD
    }

    /** Overlay entries below which no merge is made, whatever the sorted file's size. */
    public static final long DEFAULT_MIN_OVERLAY = 65_536;
    private static final int MERGE_FRACTION = 32;

    private record View(SortedNeedleIndex sorted, NeedleOverlay overlay) {
    }

    private final Path file;
    private final Path scratchDir;
    private final long minOverlay;
    private final boolean releaseAtOnce;
    private volatile View view;
    private volatile long live;
    private final Hit probe = new Hit();

    private NeedleIndex(Path file, SortedNeedleIndex sorted, long minOverlay, Readers readers) throws IOException {
        this.file = file;
        this.scratchDir = file.toAbsolutePath().getParent();
        this.minOverlay = minOverlay;
        this.releaseAtOnce = readers == Readers.WRITER_THREAD;
        this.view = new View(sorted, new NeedleOverlay(scratchDir, 0, releaseAtOnce));
        this.live = sorted.count();
    }

    /** Serves an index file already checked by {@link SortedNeedleIndex#open} and found current by the caller. */
    public static NeedleIndex of(Path file, SortedNeedleIndex sorted, long minOverlay, Readers readers)
            throws IOException {
        return new NeedleIndex(file, sorted, minOverlay, readers);
    }

    /**
     * Builds the index file from {@code .idx} entries collected in order (the last entry of a key wins, as in
     * SeaweedFS's replay) and serves it.
     */
    public static NeedleIndex build(Path file, NeedleRecords idxEntries, SortedNeedleIndex.Stamp stamp,
                                    long minOverlay, Readers readers) throws IOException {
        idxEntries.sort();
        SortedNeedleIndex sorted =
                SortedNeedleIndex.write(file, consumer -> lastOfEachKey(idxEntries, consumer), stamp);
        try {
            return new NeedleIndex(file, sorted, minOverlay, readers);
        } catch (IOException | RuntimeException e) {
            sorted.close();
            throw e;
        }
    }

    /** The live entries of key-sorted records: the last record of each key, unless it is a deletion. */
    private static void lastOfEachKey(NeedleRecords records, NeedleEntryConsumer consumer) {
        long n = records.count();
        for (long i = 0; i < n; i++) {
            long key = records.key(i);
            if (i + 1 < n && records.key(i + 1) == key) {
                continue;
            }
            long offset = records.units(i) * NeedleLayout.ALIGNMENT;
            int size = records.size(i);
            if (IndexFormat.isLive(offset, size)) {
                consumer.accept(key, offset, size);
            }
        }
    }

    /** Live needles. Any thread. */
    public long size() {
        return live;
    }

    /** Whether {@code key} is live; fills {@code hit} when it is. Any thread. */
    public boolean find(long key, Hit hit) {
        View v = view;
        int state = v.overlay().find(key, hit);
        if (state != NeedleOverlay.ABSENT) {
            return state == NeedleOverlay.LIVE;
        }
        long i = v.sorted().find(key);
        if (i < 0) {
            return false;
        }
        hit.set(v.sorted().offsetAt(i), v.sorted().sizeAt(i));
        return true;
    }

    /**
     * Applies one {@code .idx} entry with SeaweedFS's replay rule (live sets the key, anything else deletes it).
     * Writer only. Returns whether the entry was live.
     */
    public boolean apply(long key, long offset, int size) throws IOException {
        NeedleOverlay overlay = view.overlay();
        boolean was = find(key, probe);
        if (IndexFormat.isLive(offset, size)) {
            if (offset < 0 || offset % NeedleLayout.ALIGNMENT != 0 || offset / NeedleLayout.ALIGNMENT >= 1L << 40) {
                throw new IllegalArgumentException("needle " + Long.toUnsignedString(key) + ": offset " + offset
                        + " is not an 8-aligned 5-byte offset");
            }
            overlay.put(key, offset, size);
            if (!was) {
                live++;
            }
            return true;
        }
        if (was) {
            overlay.delete(key);
            live--;
        }
        return false;
    }

    /** Whether the overlay has grown enough that {@link #merge} should run. Writer only. */
    public boolean mergeDue() {
        View v = view;
        return v.overlay().count() > Math.max(minOverlay, v.sorted().count() / MERGE_FRACTION);
    }

    /**
     * Writes a new index file of everything applied (replacing the file, which {@code stamp} describes) and
     * continues with an empty overlay. Writer only.
     */
    public void merge(SortedNeedleIndex.Stamp stamp) throws IOException {
        View old = view;
        SortedNeedleIndex merged;
        try (NeedleRecords changes = new NeedleRecords(scratchDir, Math.max(1, old.overlay().count()))) {
            old.overlay().copyTo(changes);
            changes.sort();
            merged = SortedNeedleIndex.write(file, consumer -> mergeInto(old.sorted(), changes, consumer), stamp);
        }
        View now;
        try {
            now = new View(merged, new NeedleOverlay(scratchDir, 0, releaseAtOnce));
        } catch (IOException | RuntimeException e) {
            merged.close();
            throw e;
        }
        view = now;
        if (releaseAtOnce) {
            old.sorted().close();
            old.overlay().close();
        }
    }

    /** The sorted entries and the (key-sorted, unique) changes, in key order; a change replaces or deletes. */
    private static void mergeInto(SortedNeedleIndex sorted, NeedleRecords changes, NeedleEntryConsumer consumer) {
        long n = changes.count();
        long[] next = {0};
        sorted.forEach((key, offset, size) -> {
            long j = next[0];
            while (j < n && Long.compareUnsigned(changes.key(j), key) < 0) {
                emitChange(changes, j++, consumer);
            }
            if (j < n && changes.key(j) == key) {
                emitChange(changes, j++, consumer);
            } else {
                consumer.accept(key, offset, size);
            }
            next[0] = j;
        });
        for (long j = next[0]; j < n; j++) {
            emitChange(changes, j, consumer);
        }
    }

    private static void emitChange(NeedleRecords changes, long j, NeedleEntryConsumer consumer) {
        if (changes.size(j) >= 0) {
            consumer.accept(changes.key(j), changes.units(j) * NeedleLayout.ALIGNMENT, changes.size(j));
        }
    }

    /** The sorted file served now (replaced by each {@link #merge}). Writer only. */
    public SortedNeedleIndex sorted() {
        return view.sorted();
    }

    /** Visits every key the overlay holds: what changed since {@link #sorted()} was written. Writer only. */
    public void forEachChangedKey(java.util.function.LongConsumer action) {
        view.overlay().forEachKey(action);
    }

    /** The sorted file's stamp: up to where a restart may trust it. */
    public SortedNeedleIndex.Stamp stamp() {
        return view.sorted().stamp();
    }

    /** Bytes mapped for the index (file and overlay), for footprint figures. Writer only. */
    public long mappedBytes() {
        View v = view;
        return v.sorted().fileBytes() + v.overlay().bytes();
    }

    /** Unmaps the current file and overlay now. Writer only, with no lookup running or to come. */
    @Override
    public void close() {
        View v = view;
        v.sorted().close();
        v.overlay().close();
    }
}
