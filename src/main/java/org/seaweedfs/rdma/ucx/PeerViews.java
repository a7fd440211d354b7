package org.seaweedfs.rdma.ucx;

import java.nio.ByteBuffer;

/**
 * The views one call takes of a region under one key, in one pass of its event loop (a batch): the loop's lane, its
 * copy of the key and the region's mapping here are found once ({@link UcxChannel#views}), so each further
 * {@link #view} is a few checks and a slice, not a walk through the registry, the lane and the key copies per needle.
 * Its views take no budget of the loop: they complete with the call's first, as one.
 *
 * <p>On the lane's event loop, within the pass that made it: not kept across tasks.
 */
public final class PeerViews {

    private final EventLoopLane lane;
    private final UcxRemoteKey key;
    private final EventLoopLane.LaneKey copy; // null for views of a file
    private final PeerFile file; // null for views of shared memory
    private final ByteBuffer mapping; // the copy's region as mapped here; null for views of a file
    private final long regionAddress;
    private final long regionLength;

    PeerViews(EventLoopLane lane, UcxRemoteKey key, EventLoopLane.LaneKey copy, PeerFile file, ByteBuffer mapping,
              long regionAddress, long regionLength) {
        this.lane = lane;
        this.key = key;
        this.copy = copy;
        this.file = file;
        this.mapping = mapping;
        this.regionAddress = regionAddress;
        this.regionLength = regionLength;
    }

    /** The key these views read under. */
    public UcxRemoteKey key() {
        return key;
    }

    /**
     * The {@code length} bytes at the peer's {@code remoteAddress} where they lie, held until the view is released;
     * null when they are not within the region, or the key or channel is no longer usable (the caller then gets the
     * bytes, which also reports why).
     */
    public PeerView view(long remoteAddress, int length) {
        long at = remoteAddress - regionAddress;
        if (length <= 0 || at < 0 || at + length > regionLength || !lane.worker.runsHere()
                || key.isReleased() || lane.channel.unusableReason() != null) {
            return null;
        }
        return copy != null ? lane.viewOf(copy, mapping.slice((int) at, length))
                : lane.viewOf(file, regionLength, at, length);
    }
}
