package org.seaweedfs.rdma.volume;

/**
 * A needle map's live entries sorted by record offset, so a whole-volume pass reads the {@code .dat}
 * front to back. Two primitive arrays (16 bytes per entry), sorted together in place.
 */
public final class LiveNeedles {

    private static final int INSERTION_SORT_BELOW = 16;

    private final long[] offsets;
    private final long[] keys;

    private LiveNeedles(long[] offsets, long[] keys) {
        this.offsets = offsets;
        this.keys = keys;
    }

    public static LiveNeedles inOffsetOrder(NeedleMap map) {
        long[] offsets = new long[map.size()];
        long[] keys = new long[map.size()];
        int[] n = {0};
        map.forEach((key, offset, size) -> {
            offsets[n[0]] = offset;
            keys[n[0]++] = key;
        });
        LiveNeedles live = new LiveNeedles(offsets, keys);
        live.sort(0, offsets.length - 1);
        return live;
    }

    public int count() {
        return offsets.length;
    }

    public long offset(int i) {
        return offsets[i];
    }

    public long key(int i) {
        return keys[i];
    }

    /** Quicksort on offsets (median of three; recursion on the smaller part keeps the stack shallow). */
    private void sort(int lo, int hi) {
        while (hi - lo >= INSERTION_SORT_BELOW) {
            int mid = (lo + hi) >>> 1;
            if (offsets[mid] < offsets[lo]) swap(mid, lo);
            if (offsets[hi] < offsets[lo]) swap(hi, lo);
            if (offsets[hi] < offsets[mid]) swap(hi, mid);
            long pivot = offsets[mid];
            int i = lo, j = hi;
            while (i <= j) {
                while (offsets[i] < pivot) i++;
                while (offsets[j] > pivot) j--;
                if (i <= j) swap(i++, j--);
            }
            if (j - lo < hi - i) {
                sort(lo, j);
                lo = i;
            } else {
                sort(i, hi);
                hi = j;
            }
        }
        for (int i = lo + 1; i <= hi; i++) {
            for (int j = i; j > lo && offsets[j] < offsets[j - 1]; j--) {
                swap(j, j - 1);
            }
        }
    }

    private void swap(int a, int b) {
        long o = offsets[a];
        offsets[a] = offsets[b];
        offsets[b] = o;
        long k = keys[a];
        keys[a] = keys[b];
        keys[b] = k;
    }
}
