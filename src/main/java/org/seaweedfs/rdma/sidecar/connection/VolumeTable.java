package org.seaweedfs.rdma.sidecar.connection;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.seaweedfs.rdma.protocol.Segment;
import org.seaweedfs.rdma.protocol.ServedFile;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.protocol.VolumeList;
import org.seaweedfs.rdma.protocol.VolumeListRequest;
import org.seaweedfs.rdma.ucx.PeerFile;
import org.seaweedfs.rdma.ucx.SameHost;
import org.seaweedfs.rdma.ucx.UcxChannel;
import org.seaweedfs.rdma.ucx.UcxRemoteKey;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.seaweedfs.rdma.sidecar.locations.LocationCache;

/**
 * The volumes one connection's agent serves, as of its last volume list: each with its segments' remote keys
 * unpacked on the connection's channel and its {@link VolumeLocations}. A new volume epoch starts with an empty
 * set of locations whose index the {@link IndexFollower} follows from the list's position; the old epoch's are
 * retired. Re-lists are coalesced: callers during a fetch wait for the next one. Home context, except
 * {@link #get} and {@link #ids} (any thread).
 */
final class VolumeTable {

    private final Vertx vertx;
    private final Context home;
    private final UcxChannel channel;
    private final RequestTable requests;
    private final String peer;
    private final LocationCache cache;
    private final LookupBatcher lookups;
    private final BooleanSupplier closed;
    private IndexFollower follower;
    /** Makes the exposed index of a volume epoch, or null while the agent speaks no protocol that has one. */
    private java.util.function.BiFunction<Long, Long, RemoteIndex> indexes = (volumeId, epoch) -> null;
    private final Map<Long, RemoteVolume> volumes = new ConcurrentHashMap<>();
    /** What readers see: {@link #volumes} as of its last change (home context writes both). */
    private volatile VolumeIndex index = VolumeIndex.EMPTY;
    /**
     * Volumes dropped for a change the agent announced (replaced, compacted, removed, an index that cannot be followed
     * at its epoch) until a list tells whether they are still served: listed and published, or not listed.
     */
    private final Set<Long> relisting = ConcurrentHashMap.newKeySet();
    private boolean listing;
    private List<Promise<Void>> waitingForThisList = new ArrayList<>();
    private List<Promise<Void>> waitingForNextList = new ArrayList<>();

    VolumeTable(Vertx vertx, Context home, UcxChannel channel, RequestTable requests, String peer, LocationCache cache,
                LookupBatcher lookups, BooleanSupplier closed) {
        this.vertx = vertx;
        this.home = home;
        this.channel = channel;
        this.requests = requests;
        this.peer = peer;
        this.cache = cache;
        this.lookups = lookups;
        this.closed = closed;
    }

    void follower(IndexFollower follower) {
        this.follower = follower;
    }

    /** Home context, before the first list: volumes listed from now on are read through the agent's index. */
    void indexes(java.util.function.BiFunction<Long, Long, RemoteIndex> make) {
        this.indexes = make;
    }

    /** Home context: the agent replaced a volume's exposed index. */
    void dropIndex(long volumeId) {
        RemoteVolume volume = volumes.get(volumeId);
        if (volume != null) {
            volume.locations().dropIndex();
        }
    }

    /** Any thread. */
    RemoteVolume get(long volumeId) {
        return index.get(volumeId);
    }

    /** Any thread. */
    Set<Long> ids() {
        return Set.copyOf(volumes.keySet());
    }

    /** Locations of this agent's volumes cached now. Any thread. */
    long cachedEntries() {
        long n = 0;
        for (RemoteVolume v : volumes.values()) {
            n += v.locations().cachedEntries();
        }
        return n;
    }

    /** Any thread: completes (on the caller's context) once a list asked for after this call is applied. */
    Future<Void> refresh() {
        Promise<Void> done = VertxInternals.promise(VertxInternals.callerContext(vertx));
        home.runOnContext(v -> {
            (listing ? waitingForNextList : waitingForThisList).add(done);
            if (!listing) {
                fetch();
            }
        });
        return done.future();
    }

    /** Home context: fetches and applies the list now. */
    Future<Void> fetch() {
        listing = true;
        List<Promise<Void>> waiters = waitingForThisList;
        waitingForThisList = new ArrayList<>();
        Future<Void> applied = requests.request(VolumeListRequest::new, VolumeList.class, "VolumeListRequest")
                .compose(list -> apply(list.volumes()));
        applied.onComplete(ar -> {
            waiters.forEach(w -> w.handle(ar));
            listing = false;
            if (!waitingForNextList.isEmpty() && !closed.getAsBoolean()) {
                waitingForThisList = waitingForNextList;
                waitingForNextList = new ArrayList<>();
                fetch();
            }
        });
        return applied;
    }

    private Future<Void> apply(List<VolumeInfo> listed) {
        Set<Long> ids = new HashSet<>();
        List<Future<Void>> work = new ArrayList<>();
        for (VolumeInfo info : listed) {
            ids.add(info.volumeId());
            RemoteVolume current = volumes.get(info.volumeId());
            if (current != null && current.epoch() == info.epoch()) {
                if (!current.info().equals(info)) {
                    work.add(publish(info, current.locations()));
                }
            } else {
                VolumeLocations locations = new VolumeLocations(info.volumeId(), info.epoch(), cache, lookups,
                        info.ec() == null ? indexes.apply(info.volumeId(), info.epoch()) : null);
                Future<Void> published = publish(info, locations);
                published.onSuccess(v -> {
                    if (isCurrent(locations)) {
                        follower.follow(locations, info.idxPosition());
                    }
                });
                work.add(published);
            }
        }
        for (Long vid : List.copyOf(volumes.keySet())) {
            if (!ids.contains(vid)) {
                drop(vid);
            }
        }
        relisting.removeIf(vid -> !ids.contains(vid));
        return Future.all(work).mapEmpty();
    }

    /**
     * Unpacks the segments' keys on the channel, then publishes the volume for readers. Each published volume
     * holds its keys until it is replaced or dropped ({@link #release}), so a long-lived connection to a volume that
     * grows (its tail segment re-mapped) or is compacted does not accumulate keys.
     */
    private Future<Void> publish(VolumeInfo info, VolumeLocations locations) {
        List<Segment> keyed = info.keyedSegments(); // the .dat's segments, then any EC shards'
        List<Future<UcxRemoteKey>> keys = new ArrayList<>(keyed.size());
        for (Segment segment : keyed) {
            keys.add(channel.unpackRemoteKey(segment.remoteKey()));
        }
        List<PeerFile> files = files(info);
        return Future.join(keys).transform(ar -> {
            if (ar.failed()) {
                keys.stream().filter(Future::succeeded).forEach(k -> channel.releaseRemoteKey(k.result()));
                releaseAll(files);
                return Future.failedFuture(ar.cause());
            }
            List<UcxRemoteKey> unpacked = keys.stream().map(Future::result).toList();
            RemoteVolume current = volumes.get(info.volumeId());
            // A newer epoch may have been published meanwhile; never go back to an older one.
            if (!closed.getAsBoolean() && (current == null || current.locations() == locations
                    || current.epoch() != locations.epoch())) {
                RemoteVolume replaced = volumes.put(info.volumeId(),
                        new RemoteVolume(info, unpacked, files, locations, peer));
                index = new VolumeIndex(volumes);
                relisting.remove(info.volumeId());
                release(replaced, locations);
            } else {
                unpacked.forEach(channel::releaseRemoteKey);
                releaseAll(files);
                locations.retire(home);
            }
            return Future.succeededFuture();
        });
    }

    /**
     * Each .dat segment's range of the agent's file, for reads on this host to map ({@link PeerFile}), held for the
     * volume about to be published; empty when the agent does not tell its file or runs on another host. A range the
     * published volume already holds (the segments a growth keeps) is shared, so its mapping stays.
     */
    private List<PeerFile> files(VolumeInfo info) {
        ServedFile file = info.file();
        if (file == null || !file.host().equals(SameHost.id())) {
            return List.of();
        }
        RemoteVolume current = volumes.get(info.volumeId());
        List<PeerFile> files = new ArrayList<>(info.segments().size());
        for (Segment segment : info.segments()) {
            PeerFile kept = current == null ? null : current.fileOf(segment);
            PeerFile range = kept != null && kept.describes(file.path(), file.device(), file.inode(),
                    segment.fileOffset(), segment.length()) ? kept : new PeerFile(file.path(), file.device(),
                    file.inode(), segment.fileOffset(), segment.length());
            range.hold();
            files.add(range);
        }
        return files;
    }

    private static void releaseAll(List<PeerFile> files) {
        for (PeerFile file : files) {
            if (file != null) {
                file.release();
            }
        }
    }

    /** Home context: true while {@code locations} belong to the published volume. */
    private boolean isCurrent(VolumeLocations locations) {
        RemoteVolume current = volumes.get(locations.volumeId());
        return !closed.getAsBoolean() && current != null && current.locations() == locations;
    }

    /** Home context: a volume goes (re-listed, compacted, removed, its index lost); readers holding it fail stale. */
    void drop(long volumeId) {
        RemoteVolume dropped = volumes.remove(volumeId);
        index = new VolumeIndex(volumes);
        release(dropped, null);
    }

    /**
     * Home context: the volume changed at the agent (its old offsets are invalid from now on): drops it and fetches the
     * list again; until a list tells, it is {@link #relisting}.
     */
    void dropAndRelist(long volumeId) {
        relisting.add(volumeId);
        drop(volumeId);
        refresh();
    }

    /** Any thread: whether the volume was dropped for a change and no list has told yet whether it is still served. */
    boolean relisting(long volumeId) {
        return relisting.contains(volumeId);
    }

    /** Releases a replaced or dropped volume's keys, and its locations unless the replacement keeps them. */
    private void release(RemoteVolume old, VolumeLocations kept) {
        if (old == null) {
            return;
        }
        if (old.locations() != kept) {
            old.locations().retire(home);
        }
        if (!closed.getAsBoolean()) {
            old.keys().forEach(channel::releaseRemoteKey);
        }
        releaseAll(old.files());
    }

    /** Home context (or the closer): every volume goes with the channel (its keys die with it). */
    void clear() {
        for (RemoteVolume v : volumes.values()) {
            v.locations().retire(home);
            releaseAll(v.files());
        }
        volumes.clear();
        index = VolumeIndex.EMPTY;
    }
}
