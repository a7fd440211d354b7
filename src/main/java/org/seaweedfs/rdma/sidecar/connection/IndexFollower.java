package org.seaweedfs.rdma.sidecar.connection;

import io.vertx.core.Context;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.seaweedfs.rdma.protocol.ErrorCode;
import org.seaweedfs.rdma.protocol.SyncEntries;
import org.seaweedfs.rdma.protocol.SyncEntryReader;
import org.seaweedfs.rdma.protocol.SyncRequest;

/**
 * Follows each volume's index at the agent from the position its volume list showed, so that a cached location is
 * dropped once the agent sees the needle deleted or rewritten. Nothing of the index is kept: each entry of a
 * {@link SyncEntries} frame (the reply to a {@link SyncRequest} from the tail, then the agent's pushes) only drops
 * that key from the cache. A gap (a push not continuing the followed position) is filled by pulling from the
 * position reached. A stale epoch hands the volume to {@code lost} (dropped and re-listed: it has a new epoch);
 * any other failure to follow stops caching that volume's locations at that epoch (each read then looks its needle
 * up; a new epoch or connection starts afresh), so a cached location is never used while its index is not followed and
 * a failing agent is not asked again and again. Home context only.
 */
final class IndexFollower {

    private static final Logger log = LoggerFactory.getLogger(IndexFollower.class);
    /** Frames with more entries than this drop their keys on a worker thread, not on the event loop. */
    private static final int INLINE_ENTRIES = 1024;

    private final Context home;
    private final RequestTable requests;
    private final String peer;
    private final LongConsumer lost;

    /** @param lost called with a volume id whose epoch the agent no longer serves (STALE_EPOCH) */
    IndexFollower(Context home, RequestTable requests, String peer, LongConsumer lost) {
        this.home = home;
        this.requests = requests;
        this.peer = peer;
        this.lost = lost;
    }

    /** Starts following {@code volume} from {@code idxPosition} (its volume list entry's). */
    void follow(VolumeLocations volume, long idxPosition) {
        volume.tail = idxPosition;
        pull(volume);
    }

    /** A pushed frame for {@code volume} (null when the connection does not list it: nothing is cached for it). */
    void pushed(VolumeLocations volume, SyncEntries entries) {
        if (volume == null || !volume.isCacheable() || entries.epoch() != volume.epoch()) {
            return; // a volume being re-listed: its new locations start empty
        }
        apply(volume, entries);
        if (entries.fromPosition() > volume.tail) {
            pull(volume); // a lost push: fetch from where we are
        }
    }

    private void pull(VolumeLocations volume) {
        if (volume.pulling || !volume.isCacheable()) {
            return;
        }
        volume.pulling = true;
        requests.request(id -> new SyncRequest(id, volume.volumeId(), volume.epoch(), volume.tail), SyncEntries.class,
                "SyncRequest").onComplete(ar -> {
                    volume.pulling = false;
                    if (!volume.isCacheable()) {
                        return;
                    }
                    if (ar.failed() && ar.cause() instanceof AgentError error && error.code()
                            == ErrorCode.STALE_EPOCH) {
                        lost.accept(volume.volumeId());
                    } else if (ar.failed() || ar.result().epoch() != volume.epoch()
                            || ar.result().fromPosition() != volume.tail) {
                        log.warn("Cannot follow the index of volume " + volume.volumeId() + " at agent " + peer + ": "
                                + (ar.failed() ? ar.cause().getMessage() : "the agent answered another range")
                                + "; its locations are not cached at this epoch");
                        volume.stopCaching(home);
                    } else {
                        apply(volume, ar.result());
                        if (ar.result().more()) {
                            pull(volume);
                        }
                    }
                });
    }

    /** Drops the frame's keys from the cache and moves the followed position when the frame continues it. */
    private void apply(VolumeLocations volume, SyncEntries entries) {
        if (entries.fromPosition() <= volume.tail && entries.toPosition() > volume.tail) {
            volume.tail = entries.toPosition();
        }
        if (entries.entryCount() == 0) {
            return;
        }
        volume.changing(); // before any drop: a lookup in flight now will not be cached (see VolumeLocations.remember)
        if (volume.cachedEntries() == 0) {
            return; // nothing to drop; a location cached from now on was looked up after this frame
        }
        if (entries.entryCount() <= INLINE_ENTRIES) {
            drop(volume, entries.reader());
        } else {
            SyncEntryReader reader = entries.reader();
            home.executeBlocking(() -> {
                drop(volume, reader);
                return null;
            }, false);
        }
    }

    private static void drop(VolumeLocations volume, SyncEntryReader entries) {
        while (entries.next()) {
            volume.evict(entries.key());
        }
    }
}
