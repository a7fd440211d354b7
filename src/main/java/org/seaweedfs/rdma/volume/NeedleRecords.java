package org.seaweedfs.rdma.volume;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A scratch run of needle entries (key, offset in 8-byte units, raw size: 24 bytes each) in mapped memory, sorted by
 * key with a stable LSD radix sort, so that among entries of one key the last appended stays last: the order a
 * {@code .idx} replay needs. Records added in key order already (SeaweedFS's keys mostly grow) are not sorted again;
 * otherwise byte digits whose value is the same in every key are skipped (keys of one volume share their high
 * bytes), so sorting costs about one pass per byte the keys differ in. Add all, then sort once. Confined to one
 * thread.
 */
public final class NeedleRecords implements Closeable {

    static final int RECORD = 24;
    private static final int DIGITS = 8;

    private final Path scratchDir;
    private final MappedBytes a;
    private final long capacity;
    private MappedBytes b;
    private MappedBytes sorted;
    private long count;
    private long lastKey;
    private boolean inOrder = true;

    public NeedleRecords(Path scratchDir, long capacity) throws IOException {
        this.scratchDir = scratchDir;
        this.capacity = capacity;
        this.a = MappedBytes.scratch(scratchDir, Math.max(1, capacity) * RECORD);
        this.sorted = a;
    }

    public long count() {
        return count;
    }

    /** Appends an entry: {@code units} of 8 bytes, {@code size} as stored (negative: deleted). */
    public void add(long key, long units, int size) {
        if (count == capacity) {
            throw new IllegalStateException("scratch records are full at " + capacity);
        }
        if (count > 0 && Long.compareUnsigned(key, lastKey) < 0) {
            inOrder = false;
        }
        lastKey = key;
        long at = count++ * RECORD;
        a.putLong(at, key);
        a.putLong(at + 8, units);
        a.putLong(at + 16, size);
    }

    public long key(long i) {
        return sorted.getLong(i * RECORD);
    }

    public long units(long i) {
        return sorted.getLong(i * RECORD + 8);
    }

    public int size(long i) {
        return (int) sorted.getLong(i * RECORD + 16);
    }

    /** Sorts by unsigned key, keeping the order of equal keys. */
    public void sort() throws IOException {
        if (inOrder) {
            return;
        }
        b = MappedBytes.scratch(scratchDir, Math.max(1, capacity) * RECORD);
        long[][] counts = new long[DIGITS][256];
        for (long i = 0; i < count; i++) {
            long key = a.getLong(i * RECORD);
            for (int d = 0; d < DIGITS; d++) {
                counts[d][(int) (key >>> (d * 8)) & 0xFF]++;
            }
        }
        MappedBytes from = a;
        MappedBytes to = b;
        for (int d = 0; d < DIGITS; d++) {
            long[] c = counts[d];
            if (sameEverywhere(c)) {
                continue;
            }
            long[] next = new long[256];
            for (int v = 1; v < 256; v++) {
                next[v] = next[v - 1] + c[v - 1];
            }
            int shift = d * 8;
            for (long i = 0; i < count; i++) {
                long at = i * RECORD;
                long key = from.getLong(at);
                long dst = next[(int) (key >>> shift) & 0xFF]++ * RECORD;
                to.putLong(dst, key);
                to.putLong(dst + 8, from.getLong(at + 8));
                to.putLong(dst + 16, from.getLong(at + 16));
            }
            MappedBytes t = from;
            from = to;
            to = t;
        }
        sorted = from;
        inOrder = true;
    }

    private boolean sameEverywhere(long[] digitCounts) {
        for (long c : digitCounts) {
            if (c == count) {
                return true;
            }
        }
        return count == 0;
    }

    @Override
    public void close() {
        a.close();
        if (b != null) {
            b.close();
        }
    }
}
