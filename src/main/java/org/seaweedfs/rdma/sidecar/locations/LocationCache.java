package org.seaweedfs.rdma.sidecar.locations;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.LongAdder;

/**
 * The sidecar's memory of where needles are: one cache for every agent connection, bounded by
 * {@code sidecar.locationCache.maxBytes} whatever the number of needles behind the agents. Caffeine's W-TinyLFU
 * keeps what is read often and lets one-off reads (a scan) pass through without flushing the hot set.
 *
 * <p>An entry is keyed by the {@link CachedVolume} it belongs to (one per connection, volume and epoch) and the
 * needle key, so a compacted volume's or a closed connection's entries can never be found again: their
 * {@link CachedVolume} is retired and its entries swept. Each entry weighs {@link #ENTRY_BYTES}: the measured
 * heap cost of one entry (key, value, Caffeine's node, its hash-table slot and frequency-sketch share; see
 * {@code LocationCacheFootprint}) and its byte of the {@link Doorkeeper}, so the budget is in real bytes, not a count.
 *
 * <p>A location the agent was asked for is cached at once (that lookup is the expensive miss). One read one-sidedly
 * from the agent's exposed index is cached from the needle's second read in a while ({@link #admit}): a read of a
 * needle not read lately (uniform reads over many needles) then costs no insert, and evicts nothing.
 *
 * <p>Thread-safe; maintenance (eviction) runs on the thread that writes, in small amortised steps.
 */
public final class LocationCache {

    /** Default budget: 64 MiB. */
    public static final long DEFAULT_MAX_BYTES = 64L << 20;
    /**
     * Heap bytes one cached location costs (133.2 measured by LocationCacheFootprint at 1 M entries with the entry as
     * its own value, 147.6 with a separate value object, and 1 of the doorkeeper's bit array; rounded up).
     */
    public static final int ENTRY_BYTES = 135;

    /**
     * The cache key: a needle of one volume epoch of one connection. Equality is written out (identity of the
     * volume view, the needle number): a record's generated equals showed up in the read path's profile.
     *
     * <p>A cached entry is its own value: the key that went in carries the location, so a hit reads the location
     * from the object the hash table's equality check has just loaded, instead of following one more reference to a
     * separate value (a cache miss per read at 4 KiB, and 16 more bytes per entry). A lookup's probe carries none.
     */
    static final class Key {
        final CachedVolume volume;
        final long needle;
        final long offset;
        final long size;

        Key(CachedVolume volume, long needle) {
            this(volume, needle, 0, 0);
        }

        Key(CachedVolume volume, long needle, long offset, long size) {
            this.volume = volume;
            this.needle = needle;
            this.offset = offset;
            this.size = size;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && key.needle == needle && key.volume == volume;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(volume) * 31 + Long.hashCode(needle);
        }
    }

    private final long maxBytes;
    private final Cache<Key, Key> cache;
    private final Doorkeeper doorkeeper;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder evictions = new LongAdder();
    private final LongAdder lookupsSent = new LongAdder();
    private final LongAdder sharedLookups = new LongAdder();
    private final DistributionSummary batchSizes;
    private final LongAdder oneSided = new LongAdder();
    private final java.util.Map<String, LongAdder> fallbacks = new java.util.concurrent.ConcurrentHashMap<>();

    /** A cache of {@code maxBytes} whose meters go to {@code registry}. */
    public LocationCache(long maxBytes, MeterRegistry registry) {
        if (maxBytes < ENTRY_BYTES) {
            throw new IllegalArgumentException("location cache budget must be at least " + ENTRY_BYTES
                    + " bytes, got " + maxBytes);
        }
        this.maxBytes = maxBytes;
        this.doorkeeper = new Doorkeeper(maxBytes / ENTRY_BYTES);
        this.cache = Caffeine.newBuilder()
                .maximumWeight(maxBytes)
                .<Key, Key>weigher((k, v) -> ENTRY_BYTES)
                .executor(Runnable::run) // no hand-off to a pool per write: the writer does the bounded upkeep
                .removalListener((Key key, Key entry, RemovalCause cause) -> removed(key, cause))
                .build();
        String prefix = "seaweedfs.rdma.location.cache.";
        FunctionCounter.builder(prefix + "hits", hits, LongAdder::sum)
                .description("Reads whose needle location was in the sidecar's cache").register(registry);
        FunctionCounter.builder(prefix + "misses", misses, LongAdder::sum)
                .description("Reads whose needle location had to be looked up at the agent").register(registry);
        FunctionCounter.builder(prefix + "evictions", evictions, LongAdder::sum)
                .description("Locations evicted to stay within sidecar.locationCache.maxBytes").register(registry);
        FunctionCounter.builder(prefix + "lookups.sent", lookupsSent, LongAdder::sum)
                .description("Needle ids sent to agents in lookup batches").register(registry);
        FunctionCounter.builder(prefix + "lookups.shared", sharedLookups, LongAdder::sum)
                .description("Misses that joined a lookup already in flight for the same needle").register(registry);
        FunctionCounter.builder(prefix + "lookups.onesided", oneSided, LongAdder::sum)
                .description("Misses resolved by reading the agent's exposed index one-sidedly (record verified)")
                .register(registry);
        for (String cause : FALLBACK_CAUSES) {
            fallbacks.put(cause, new LongAdder());
            FunctionCounter.builder(prefix + "lookups.fallback", fallbacks.get(cause), LongAdder::sum)
                    .tag("cause", cause)
                    .description("Misses a one-sided index read could not resolve, then looked up at the agent")
                    .register(registry);
        }
        batchSizes = DistributionSummary.builder(prefix + "batch.size").baseUnit("ids")
                .description("Needle ids per lookup frame").register(registry);
        Gauge.builder(prefix + "used.bytes", this, LocationCache::usedBytes).baseUnit("bytes")
                .description("Heap the cached locations take (entries x their measured size)")
                .strongReference(true).register(registry);
        Gauge.builder(prefix + "max.bytes", this, c -> c.maxBytes).baseUnit("bytes")
                .description("sidecar.locationCache.maxBytes").strongReference(true).register(registry);
    }

    /** The cached location of {@code needle} in {@code volume}, or null (counted as a hit or a miss). */
    public NeedleLocation find(CachedVolume volume, long needle) {
        Key found = volume.isCacheable() ? cache.getIfPresent(new Key(volume, needle)) : null;
        (found == null ? misses : hits).increment();
        return found == null ? null : new NeedleLocation(found.offset, found.size);
    }

    public void put(CachedVolume volume, long needle, NeedleLocation location) {
        put(volume, needle, location.offset(), location.size());
    }

    /**
     * Caches a location found without the agent's help if the needle was offered before lately, else only notes the
     * offer (a read-once needle is cheaper to find one-sidedly again than to insert, and evict another for).
     * Returns whether it was cached.
     */
    public boolean admit(CachedVolume volume, long needle, long offset, long size) {
        if (!doorkeeper.offeredBefore(volume, needle)) {
            return false;
        }
        put(volume, needle, offset, size);
        return true;
    }

    private void put(CachedVolume volume, long needle, long offset, long size) {
        Key entry = new Key(volume, needle, offset, size);
        if (cache.asMap().put(entry, entry) == null) {
            volume.cachedChanged(1);
        }
    }

    public void forget(CachedVolume volume, long needle) {
        cache.invalidate(new Key(volume, needle));
    }

    /** Drops every entry of a retired volume (O(cache size): runs off the event loop, on rare events). */
    public void sweep(CachedVolume volume) {
        cache.asMap().keySet().removeIf(k -> k.volume == volume);
    }

    public void lookupsSent(int ids) {
        lookupsSent.add(ids);
        batchSizes.record(ids);
    }

    /**
     * Why a one-sided index read fell back to a lookup: {@code absent} (not in the exposed index, or withdrawn: new,
     * changed or deleted since the agent wrote it), {@code record} (the record it pointed at did not check),
     * {@code get} (the get failed), {@code bucket} (a bucket the directory makes implausible).
     */
    public static final java.util.List<String> FALLBACK_CAUSES = java.util.List.of("absent", "record", "get", "bucket");

    /** A miss resolved one-sidedly. */
    public void oneSided() {
        oneSided.increment();
    }

    /** A one-sided index read that fell back to a lookup, by one of {@link #FALLBACK_CAUSES}. */
    public void fellBack(String cause) {
        LongAdder n = fallbacks.get(cause);
        if (n == null) {
            throw new IllegalArgumentException("unknown fallback cause " + cause);
        }
        n.increment();
    }

    public long oneSidedLookups() {
        return oneSided.sum();
    }

    public long fallbacks(String cause) {
        return fallbacks.get(cause).sum();
    }

    public long lookupsSentCount() {
        return lookupsSent.sum();
    }

    public void lookupShared() {
        sharedLookups.increment();
    }

    private void removed(Key key, RemovalCause cause) {
        if (cause == RemovalCause.REPLACED) {
            return;
        }
        if (cause.wasEvicted()) {
            evictions.increment();
        }
        key.volume.cachedChanged(-1);
    }

    /** Bytes the entries take now (entries x {@link #ENTRY_BYTES}). */
    public long usedBytes() {
        return cache.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
    }

    public long maxBytes() {
        return maxBytes;
    }

    /** Entries held now (approximate while writes run). */
    public long size() {
        return cache.estimatedSize();
    }

    public long hits() {
        return hits.sum();
    }

    public long misses() {
        return misses.sum();
    }

    public long evictions() {
        return evictions.sum();
    }

    /** Needle ids sent to agents in lookups. */
    public long lookupsSent() {
        return lookupsSent.sum();
    }

    public long sharedLookups() {
        return sharedLookups.sum();
    }

    /** Runs pending maintenance (eviction) now; tests use it to observe the bound. */
    public void cleanUp() {
        cache.cleanUp();
    }
}
