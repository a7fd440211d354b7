package org.seaweedfs.rdma.ucx;

import java.nio.ByteBuffer;

/**
 * Bytes of a same-host peer's memory read where they lie: the range is mapped into this process (the peer's shared
 * memory by {@link PeerMemory}, or the peer's file by {@link PeerFile}), and this view holds what keeps the mapping
 * (its lane's copy of the key, or the file's range) until {@link #release()}, whatever the peer, the channel or the
 * key do meanwhile.
 *
 * <p>A peer serves only ranges it no longer writes (a volume's served bytes; growth goes past them), so the bytes a
 * reader checked are the bytes it later sends. Made on the lane's event loop; {@link #release()} may come from any
 * thread.
 */
public final class PeerView {

    private final EventLoopLane lane;
    private final EventLoopLane.LaneKey key; // null for a view of a file
    private final PeerFile file; // null for a view of shared memory
    private final ByteBuffer bytes;
    private boolean released; // lane's thread

    PeerView(EventLoopLane lane, EventLoopLane.LaneKey key, PeerFile file, ByteBuffer bytes) {
        this.lane = lane;
        this.key = key;
        this.file = file;
        this.bytes = bytes;
    }

    /** The range's bytes: this view's own direct buffer over the mapping; not to be used after {@link #release()}. */
    public ByteBuffer bytes() {
        return bytes;
    }

    /** Lets the key's copy close once nothing else holds it. Idempotent; from any thread. */
    public void release() {
        if (!lane.worker.runsHere() && lane.worker.execute(this::releaseHere)) {
            return;
        }
        releaseHere(); // on the lane's thread, or its loop stopped: the key copy is left to the worker's end
    }

    private void releaseHere() {
        if (!released) {
            released = true;
            if (key != null) {
                key.viewReleased(lane.worker);
            } else {
                file.viewReleased();
            }
        }
    }
}
