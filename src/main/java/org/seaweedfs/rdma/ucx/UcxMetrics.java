package org.seaweedfs.rdma.ucx;

import java.util.concurrent.atomic.LongAdder;

/** Plain counters of one worker's traffic; the metrics package binds them to Micrometer. */
public final class UcxMetrics {

    private final LongAdder gets = new LongAdder();
    private final LongAdder getBytes = new LongAdder();
    private final LongAdder framesSent = new LongAdder();
    private final LongAdder frameBytesSent = new LongAdder();
    private final LongAdder framesReceived = new LongAdder();
    private final LongAdder frameBytesReceived = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder channelsOpened = new LongAdder();
    private final LongAdder channelsClosed = new LongAdder();
    private final LongAdder laneGets = new LongAdder();
    private final LongAdder lanesOpen = new LongAdder();
    private final LongAdder laneKeys = new LongAdder();
    private final LongAdder laneImplicitGets = new LongAdder();
    private final LongAdder laneCopiedGets = new LongAdder();
    private final LongAdder laneViews = new LongAdder();
    private final LongAdder laneFileViews = new LongAdder();

    void getCompleted(long bytes) {
        gets.increment();
        getBytes.add(bytes);
    }

    /** Gets that completed on an event-loop lane, one or a batch (also counted in {@link #gets()}). */
    void laneGetsCompleted(int count, long bytes) {
        gets.add(count);
        getBytes.add(bytes);
        laneGets.add(count);
    }

    /** Implicit gets handed to a lane's flush, whose outcome is theirs (counted when the flush is issued). */
    void laneGetsFlushed(int count) {
        laneImplicitGets.add(count);
    }

    /** A lane get served by one copy from the peer's memory mapped here (also counted when it completes). */
    void laneGetCopied() {
        laneCopiedGets.increment();
    }

    /** Bytes used where they lie in a peer's memory mapped here, with no get and no copy ({@link PeerView}). */
    void laneView() {
        laneViews.increment();
    }

    /** Bytes used where they lie in a same-host peer's file mapped here ({@link PeerFile}). */
    void laneFileView() {
        laneFileViews.increment();
    }

    long laneImplicitGets() {
        return laneImplicitGets.sum();
    }

    void laneOpened() {
        lanesOpen.increment();
    }

    void laneClosed() {
        lanesOpen.decrement();
    }

    void laneKeyUnpacked() {
        laneKeys.increment();
    }

    void laneKeyClosed() {
        laneKeys.decrement();
    }

    void frameSent(long bytes) {
        framesSent.increment();
        frameBytesSent.add(bytes);
    }

    void frameReceived(long bytes) {
        framesReceived.increment();
        frameBytesReceived.add(bytes);
    }

    void error() {
        errors.increment();
    }

    void channelOpened() {
        channelsOpened.increment();
    }

    void channelClosed() {
        channelsClosed.increment();
    }

    /** Gets completed successfully. */
    public LongAdder gets() {
        return gets;
    }

    /** Bytes moved by successful gets. */
    public LongAdder getBytes() {
        return getBytes;
    }

    /** Gets completed on an event-loop lane, without a hand-off to the owner thread (part of {@link #gets()}). */
    public LongAdder laneGets() {
        return laneGets;
    }

    /** Lane gets served by one copy from a same-host peer's memory mapped here (part of {@link #laneGets()}). */
    public LongAdder laneViews() {
        return laneViews;
    }

    /** Reads that used a same-host peer's file mapped here where it lies: no get, no copy ({@link PeerFile}). */
    public LongAdder laneFileViews() {
        return laneFileViews;
    }

    public LongAdder laneCopiedGets() {
        return laneCopiedGets;
    }

    /** Lanes open now: one per event loop and channel that issued gets on it. */
    public long lanes() {
        return lanesOpen.sum();
    }

    /** Remote keys unpacked on lanes and not closed yet (each lane holds its own copy of a channel's key). */
    public long laneRemoteKeys() {
        return laneKeys.sum();
    }

    public LongAdder framesSent() {
        return framesSent;
    }

    public LongAdder frameBytesSent() {
        return frameBytesSent;
    }

    public LongAdder framesReceived() {
        return framesReceived;
    }

    public LongAdder frameBytesReceived() {
        return frameBytesReceived;
    }

    /** Failed operations and endpoint failures. */
    public LongAdder errors() {
        return errors;
    }

    public LongAdder channelsOpened() {
        return channelsOpened;
    }

    public LongAdder channelsClosed() {
        return channelsClosed;
    }
}
