package org.seaweedfs.rdma.sidecar.connection;

import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.concurrent.atomic.LongAdder;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.sidecar.locations.LocationCache;
import org.seaweedfs.rdma.sidecar.locations.NeedleLocation;
import org.seaweedfs.rdma.sidecar.locations.CachedVolume;

/**
 * The needle locations of one volume epoch as one connection knows them: a view on the shared
 * {@link LocationCache} (nothing is held here), its lookups at the agent on a miss, and the agent's index changes
 * that invalidate cached entries. Retired for good when the volume's epoch changes, the volume goes or the
 * connection closes: a retired one finds nothing and its entries are swept from the cache.
 *
 * <p>Threads: {@link #find}, {@link #lookup} and {@link #evict} from any thread. The change count is written on
 * the connection's home context only (by {@link IndexFollower}); the tail position is home-confined.
 */
public final class VolumeLocations implements CachedVolume {

    private final long volumeId;
    private final long epoch;
    private final LocationCache cache;
    private final LookupBatcher lookups;
    /** The agent's exposed index of this volume epoch, or null when the agent exposes none (protocol 3). */
    private final RemoteIndex index;
    private final LongAdder cached = new LongAdder();
    private volatile boolean live = true;
    /** False once the agent's index cannot be followed: every read of this volume is then looked up. */
    private volatile boolean cacheable = true;
    /** Index frames seen for this volume (home context writes; lookups compare it before and after). */
    private volatile long changes;

    // Home context: how far the agent's index has been followed.
    long tail;
    boolean pulling;

    /** Locations of a volume whose agent exposes no index: every miss is looked up. */
    VolumeLocations(long volumeId, long epoch, LocationCache cache, LookupBatcher lookups) {
        this(volumeId, epoch, cache, lookups, null);
    }

    VolumeLocations(long volumeId, long epoch, LocationCache cache, LookupBatcher lookups, RemoteIndex index) {
        this.volumeId = volumeId;
        this.epoch = epoch;
        this.cache = cache;
        this.lookups = lookups;
        this.index = index;
    }

    /**
     * The agent's exposed index of this volume epoch when it can be read one-sidedly now, else null (the agent
     * exposes none, it is loading, or the volume changed): then {@link #lookup}. Any thread.
     */
    public RemoteIndex.Ready remoteIndex() {
        return index == null || !live ? null : index.ready();
    }

    /** Whether the exposed index is loaded (its remote key held), without asking for it. */
    boolean indexLoaded() {
        return index != null && index.loaded();
    }

    /** The cache's counters of one-sided lookups and their fallbacks. */
    public LocationCache cache() {
        return cache;
    }

    /** Index frames seen so far: read before a one-sided index read, handed to {@link #rememberVerified}. */
    public long changeCount() {
        return changes;
    }

    /**
     * Caches a location read from the agent's exposed index whose record then checked, if the cache admits it (from
     * the needle's second read in a while: {@link LocationCache#admit}) and no index frame for this volume arrived
     * since {@code changesBefore} (it may have dropped the key meanwhile). Any thread.
     */
    public void rememberVerified(long key, long offset, long size, long changesBefore) {
        if (isCacheable() && cache.admit(this, key, offset, size)) {
            takeBackIfChanged(key, changesBefore);
        }
    }

    /** Home context: the agent replaced its exposed index of this volume. */
    void dropIndex() {
        if (index != null) {
            index.drop();
        }
    }

    public long volumeId() {
        return volumeId;
    }

    public long epoch() {
        return epoch;
    }

    /** The cached location of the needle, or null (then {@link #lookup}). Any thread. */
    public NeedleLocation find(long key) {
        return cache.find(this, key);
    }

    /**
     * Asks the agent where the needle is (batched with other misses to the same agent; a lookup already in flight
     * for the same needle is shared). A found location is cached. Completes on the caller's context.
     */
    public Future<LookupAnswer> lookup(FileId fid) {
        return lookups.lookup(this, fid);
    }

    /** Forgets the needle's cached location (it proved stale). */
    public void evict(long key) {
        cache.forget(this, key);
    }

    /** Locations of this volume cached now (approximate while the cache changes). */
    public long cachedEntries() {
        return cached.sum();
    }

    boolean isLive() {
        return live;
    }

    /** Whether cached locations of this volume may be used (it is live and its index is followed). */
    @Override
    public boolean isCacheable() {
        return live && cacheable;
    }

    long changes() {
        return changes;
    }

    /** Home context: an index frame for this volume arrived (before its keys are dropped). */
    void changing() {
        changes++;
    }

    @Override
    public void cachedChanged(int delta) {
        cached.add(delta);
    }

    /** Caches a looked-up location unless the index changed since the lookup was sent. */
    void remember(long key, NeedleLocation location, long changesAtSend) {
        if (!isCacheable()) {
            return;
        }
        cache.put(this, key, location);
        takeBackIfChanged(key, changesAtSend);
    }

    /** A change frame handled meanwhile may have dropped keys before a put: take it back (dropping is safe). */
    private void takeBackIfChanged(long key, long changesBefore) {
        if (changes != changesBefore || !isCacheable()) {
            cache.forget(this, key);
        }
    }

    /** Home context: never found again; the cache's entries are swept on a worker thread. */
    void retire(Context home) {
        if (!live) {
            return;
        }
        live = false;
        if (index != null) {
            index.retire();
        }
        sweep(home);
    }

    /**
     * Home context: the agent's index can no longer be followed at this epoch, so nothing of it is cached any more
     * (reads still work, each with a lookup) until the volume changes epoch or the connection is made again.
     */
    void stopCaching(Context home) {
        if (!cacheable) {
            return;
        }
        cacheable = false;
        sweep(home);
    }

    private void sweep(Context home) {
        if (cached.sum() > 0) {
            home.executeBlocking(() -> {
                cache.sweep(this);
                return null;
            }, false);
        }
    }

    @Override
    public String toString() {
        return "locations of volume " + volumeId + " (epoch " + Long.toUnsignedString(epoch) + ")";
    }
}
