package org.seaweedfs.rdma.sidecar.locations;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Which needles were offered lately (TinyLFU's "doorkeeper"): a bit array of {@link #BITS_PER_ENTRY} bits per cache
 * entry, two bits of one word per needle, cleared once as many needles were marked as the cache holds entries. A
 * needle offered for the first time in that window is only marked; offered again (or colliding with marks, about 2 %
 * of the time on average), it is admitted. So a needle read once costs no cache insert, and no eviction of another.
 *
 * <p>Lock-free, any thread: a race may lose a mark (that needle is admitted one read later) or a count (the array is
 * cleared a little later); neither can admit what was not offered.
 */
final class Doorkeeper {

    /** Bits per cache entry: with two bits per needle, false positives reach 5 % when the window is full. */
    static final int BITS_PER_ENTRY = 8;
    private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] words;
    private final long window;
    private final AtomicLong marked = new AtomicLong();

    /** A doorkeeper for a cache of {@code entries} entries ({@code entries} x 8 bits, at least one word). */
    Doorkeeper(long entries) {
        long wordCount = Math.max(1, (entries * BITS_PER_ENTRY + Long.SIZE - 1) / Long.SIZE);
        if (wordCount > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a doorkeeper for " + entries + " entries is too large");
        }
        words = new long[(int) wordCount];
        window = Math.max(1, entries);
    }

    /** Whether the needle was offered since the last clearing; marks it if not. */
    boolean offeredBefore(CachedVolume volume, long needle) {
        long h = mix(needle ^ ((long) System.identityHashCode(volume) << 32));
        int i = (int) (((h >>> 32) * words.length) >>> 32); // the top bits pick the word, the low ones the two bits
        long mask = (1L << h) | (1L << (h >>> 6));
        if (((long) WORDS.getOpaque(words, i) & mask) == mask) {
            return true;
        }
        WORDS.getAndBitwiseOr(words, i, mask);
        if (marked.incrementAndGet() >= window) {
            marked.set(0);
            Arrays.fill(words, 0L); // 1/135 of the cache's bytes, once per window: about a byte per needle marked
        }
        return false;
    }

    /** The finaliser of SplitMix64: every input bit moves every output bit. */
    private static long mix(long x) {
        x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
        x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
        return x ^ (x >>> 31);
    }
}
