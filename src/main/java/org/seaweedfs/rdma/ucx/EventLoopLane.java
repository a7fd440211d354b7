package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpRemoteKey;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One channel's endpoint on an event loop's {@link LaneWorker}: connected by the peer's worker address (from the
 * handshake), so the peer runs no code for it, and used only on that event loop. Holds its own unpacked copy of each
 * of the channel's remote keys it used (a remote key belongs to the endpoint that unpacked it) and its gets in flight.
 *
 * <p>A get from memory that UCX mapped into this process (a same-host peer's shared memory) is one copy inside the
 * issuing call ({@link PeerMemory}). Otherwise, a get whose completion waits for the worker's polling task anyway may
 * be issued implicit ({@code ucp_get_nbi}:
 * no request object, no callback through JNI, which JUCX spends on every get); one endpoint flush per polling task
 * then completes all of them ({@link #flush}).
 */
final class EventLoopLane {

    private static final Logger log = LoggerFactory.getLogger(EventLoopLane.class);

    /**
     * The lane's copy of a channel key; closed once the key is released and neither a lane get nor a {@link PeerView}
     * uses it. Closing it detaches the peer memory UCX mapped here, so a view's key copy outlives the lane if need be.
     */
    static final class LaneKey {
        private final UcxMetrics metrics;
        private UcpRemoteKey ucpKey;
        private int inFlight;
        private int views;
        private boolean retired;
        private boolean notMappedHere; // a copy from the peer's memory failed once: it is not mapped here
        // The peer's region this key registers, as mapped here (made at the first view): views are slices of it.
        private ByteBuffer mapping;
        private long mappedBase;

        private LaneKey(UcxMetrics metrics, UcpRemoteKey ucpKey) {
            this.metrics = metrics;
            this.ucpKey = ucpKey;
            metrics.laneKeyUnpacked();
        }

        private void closeIfUnused() {
            if (retired && inFlight == 0) {
                close();
            }
        }

        /** Closes the copy now, or when its last view is released. */
        private void close() {
            retired = true;
            if (ucpKey != null && views == 0) {
                ucpKey.close();
                ucpKey = null;
                metrics.laneKeyClosed();
            }
        }

        /** On the lane's thread (or once its loop stopped): a view of this key's memory was released. */
        void viewReleased(LaneWorker worker) {
            views--;
            if (!worker.isClosed()) { // a closed worker's keys go with it: UCX's worker end, not a close after it
                closeIfUnused();
            }
        }
    }

    final LaneWorker worker;
    final UcxChannel channel;
    private final UcpEndpoint endpoint;
    private final Map<UcxRemoteKey, LaneKey> keys = new IdentityHashMap<>();
    private LaneGetOp head; // gets in flight
    private ArrayList<LaneGetOp> unflushed = new ArrayList<>(); // implicit gets issued since the last flush
    private UcxTransportException failure; // set by the endpoint's error handler
    private UcxTransportException drainCause; // set when the lane takes no more gets and waits for its gets in flight
    private long drainDeadline;
    private boolean closed;

    private EventLoopLane(LaneWorker worker, UcxChannel channel, UcpWorker ucpWorker, byte[] peerAddress,
                          boolean peerErrorHandling) {
        this.worker = worker;
        this.channel = channel;
        ByteBuffer address = ByteBuffer.allocateDirect(peerAddress.length).put(peerAddress).flip();
        UcpEndpointParams params = new UcpEndpointParams().setName(channel + "-lane").setUcpAddress(address)
                .setErrorHandler((ep, status, message) -> failed(status, message));
        this.endpoint = ucpWorker.newEndpoint(peerErrorHandling ? params.setPeerErrorHandlingMode() : params);
    }

    /** On the lane's thread: a new lane to the channel's peer; throws a {@link UcxException} when UCX refuses. */
    static EventLoopLane open(LaneWorker worker, UcxChannel channel, UcpWorker ucpWorker, boolean peerErrorHandling) {
        return new EventLoopLane(worker, channel, ucpWorker, channel.peerWorkerAddress(), peerErrorHandling);
    }

    /**
     * Issues a get, {@code implicit} or with a request of its own; the op is always returned, finished at once when it
     * could not be issued. An implicit get completes only with the lane's next {@link #flush}.
     */
    LaneGetOp issue(Context context, long remoteAddress, UcxRemoteKey key, long localAddress, long length,
                    boolean implicit) {
        LaneKey copy = null;
        UcxTransportException unusable = null;
        try {
            copy = usableCopy(key);
        } catch (UcxTransportException e) {
            unusable = e;
        }
        LaneGetOp op = new LaneGetOp(this, context, copy, remoteAddress, length);
        track(op);
        if (unusable != null) {
            op.finish(unusable);
        } else if (copyFromPeerMemory(copy, remoteAddress, localAddress, length)) {
            op.finish(null);
        } else {
            try {
                if (implicit) {
                    endpoint.getNonBlockingImplicit(remoteAddress, copy.ucpKey, localAddress, length);
                    unflushed.add(op);
                } else {
                    endpoint.getNonBlocking(remoteAddress, copy.ucpKey, localAddress, length, op);
                }
            } catch (UcxException e) {
                op.finish(channel.operationError(op.describe(), e.getStatus(), e.getMessage()));
            }
        }
        return op;
    }

    /**
     * The peer's memory at {@code remoteAddress} where it lies, when UCX mapped it here, or else when the region is
     * {@code file} (null: none) and that maps here ({@link PeerView}); null when neither is mapped here (found once per
     * key copy or file, then not asked again), the key cannot be used (a get reports why) or the range is not within
     * the region ({@code regionAddress}, {@code regionLength}) the key registers.
     */
    PeerView view(UcxRemoteKey key, PeerFile file, long regionAddress, long regionLength, long remoteAddress,
                  int length) {
        long at = remoteAddress - regionAddress;
        if (at < 0 || at + length > regionLength) {
            return null;
        }
        LaneKey copy = mappedCopy(key, regionAddress, regionLength);
        if (copy != null) {
            return viewOf(copy, copy.mapping.slice((int) at, length));
        }
        return file == null || key.isReleased() ? null : viewOf(file, regionLength, at, length);
    }

    /**
     * Views of the region ({@code regionAddress}, {@code regionLength}) that {@code key} registers (or that is
     * {@code file}), for one call in this pass of the loop ({@link PeerViews}); null when that memory is not mapped
     * here or the key cannot be used.
     */
    PeerViews views(UcxRemoteKey key, PeerFile file, long regionAddress, long regionLength) {
        LaneKey copy = mappedCopy(key, regionAddress, regionLength);
        if (copy != null) {
            return new PeerViews(this, key, copy, null, copy.mapping, regionAddress, copy.mapping.capacity());
        }
        return file == null || key.isReleased() || !file.mapsHere(regionLength) ? null
                : new PeerViews(this, key, null, file, null, regionAddress, regionLength);
    }

    /**
     * The lane's copy of {@code key}, its {@code mapping} covering the region; null when that memory is not mapped here
     * (found once per key copy, then not asked again) or the key cannot be used (a get reports why).
     */
    private LaneKey mappedCopy(UcxRemoteKey key, long regionAddress, long regionLength) {
        if (regionLength > Integer.MAX_VALUE) {
            return null;
        }
        LaneKey copy;
        try {
            copy = usableCopy(key);
        } catch (UcxTransportException e) {
            return null;
        }
        if (copy.notMappedHere) {
            return null;
        }
        ByteBuffer mapping = copy.mapping;
        if (mapping == null || copy.mappedBase != regionAddress || mapping.capacity() < regionLength) {
            // Once per key (again if the region grew in place): each view is then a slice, with no call into UCX.
            long local = PeerMemory.address(copy.ucpKey, regionAddress);
            if (local == 0) {
                copy.notMappedHere = true;
                return null;
            }
            copy.mapping = UcxUtils.getByteBufferView(local, (int) regionLength);
            copy.mappedBase = regionAddress;
        }
        return copy;
    }

    /** A view of {@code bytes}, which lie in the memory {@code copy} maps here; holds the copy open until released. */
    PeerView viewOf(LaneKey copy, ByteBuffer bytes) {
        copy.views++;
        channel.metrics().laneView();
        return new PeerView(this, copy, null, bytes);
    }

    /**
     * A view of {@code length} bytes at {@code at} of the region of {@code regionLength} bytes that {@code file} is,
     * mapped here; holds the mapping until released. Null when it is not mapped here.
     */
    PeerView viewOf(PeerFile file, long regionLength, long at, int length) {
        ByteBuffer bytes = file.take(regionLength, at, length);
        if (bytes == null) {
            return null;
        }
        channel.metrics().laneFileView();
        return new PeerView(this, null, file, bytes);
    }

    /**
     * A get served by copying from the peer's memory mapped here ({@link PeerMemory}); false when that memory is not
     * mapped here (found once per key copy, then not asked again).
     */
    private boolean copyFromPeerMemory(LaneKey copy, long remoteAddress, long localAddress, long length) {
        if (copy.notMappedHere) {
            return false;
        }
        if (PeerMemory.copy(copy.ucpKey, remoteAddress, localAddress, length)) {
            channel.metrics().laneGetCopied();
            return true;
        }
        copy.notMappedHere = true;
        return false;
    }

    /**
     * Posts every get of {@code batch} implicit, as one op which the lane's next {@link #flush} completes (the caller
     * flushes at once); gets from a peer's memory mapped here are copied at once instead ({@link PeerMemory}). The op
     * is always returned, finished at once when no get needs the flush; when posting fails part way, the flush still
     * waits for the gets posted, and the op fails then.
     */
    LaneGetOp issueAll(Context context, GetBatch batch) {
        LaneKey[] copies = new LaneKey[batch.size()];
        UcxTransportException failure = null;
        try {
            for (int i = 0; i < copies.length; i++) {
                copies[i] = usableCopy(batch.key(i));
            }
        } catch (UcxTransportException e) {
            failure = e;
        }
        LaneGetOp op = new LaneGetOp(this, context, failure == null ? copies[0] : null, batch.remoteAddress(0),
                batch.bytes(), batch.size());
        if (failure == null) {
            op.moreKeys = otherKeys(copies);
        }
        track(op);
        if (failure != null) {
            op.finish(failure);
            return op;
        }
        boolean posted = false; // a get that only the flush completes
        try {
            for (int i = 0; i < copies.length; i++) {
                LaneKey copy = copies[i];
                if (!copyFromPeerMemory(copy, batch.remoteAddress(i), batch.localAddress(i), batch.length(i))) {
                    posted = true;
                    endpoint.getNonBlockingImplicit(batch.remoteAddress(i), copy.ucpKey, batch.localAddress(i),
                            batch.length(i));
                }
            }
        } catch (UcxException e) {
            op.postFailure = channel.operationError(op.describe(), e.getStatus(), e.getMessage());
        }
        if (posted) {
            unflushed.add(op);
        } else {
            op.finish(null); // every get was a copy from the peer's memory mapped here
        }
        return op;
    }

    /** The key copies of a batch other than its first, each once (null when it used one key, the common case). */
    private static LaneKey[] otherKeys(LaneKey[] copies) {
        LaneKey first = copies[0];
        int others = 0;
        for (LaneKey copy : copies) {
            if (copy != first) {
                others++;
            }
        }
        if (others == 0) {
            return null;
        }
        Set<LaneKey> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
        for (LaneKey copy : copies) {
            if (copy != first) {
                distinct.add(copy);
            }
        }
        return distinct.toArray(new LaneKey[0]);
    }

    /** Implicit gets issued and not yet flushed; from the first, the worker must {@link #flush} this lane. */
    int unflushedGets() {
        return unflushed.size();
    }

    /**
     * Outside callbacks: one endpoint flush for the implicit gets issued since the last. UCX completes a flush once
     * every operation before it has, so its outcome is theirs: inside this call for shared-memory gets.
     */
    void flush() {
        if (unflushed.isEmpty() || closed) {
            return;
        }
        LaneFlush flush = new LaneFlush(unflushed);
        unflushed = new ArrayList<>();
        int gets = 0;
        for (LaneGetOp op : flush.ops) {
            gets += op.count;
        }
        channel.metrics().laneGetsFlushed(gets);
        try {
            endpoint.flushNonBlocking(flush);
        } catch (UcxException e) {
            flush.onError(e.getStatus(), e.getMessage());
        }
    }

    /** The flush of implicit gets: its outcome is theirs. */
    private final class LaneFlush extends UcxCallback {
        private final List<LaneGetOp> ops;

        LaneFlush(List<LaneGetOp> ops) {
            this.ops = ops;
        }

        @Override
        public void onSuccess(UcpRequest request) {
            for (LaneGetOp op : ops) {
                op.finish(op.postFailure);
            }
        }

        @Override
        public void onError(int ucsStatus, String errorMsg) {
            for (LaneGetOp op : ops) {
                op.finish(channel.operationError(op.describe() + ", flushed", ucsStatus, errorMsg));
            }
        }
    }

    /** The lane's copy of {@code key} for a get; throws when the key is released or UCX cannot unpack it. */
    private LaneKey usableCopy(UcxRemoteKey key) {
        if (key.isReleased()) {
            throw new UcxTransportException("remote key is closed on " + channel);
        }
        try {
            return keyCopy(key);
        } catch (UcxException e) {
            throw channel.operationError("remote key unpack (event-loop lane)", e.getStatus(), e.getMessage());
        }
    }

    /** Unpacked lazily at first use: {@code ucp_ep_rkey_unpack} is local and synchronous. */
    private LaneKey keyCopy(UcxRemoteKey key) {
        LaneKey copy = keys.get(key);
        if (copy == null) {
            copy = new LaneKey(channel.metrics(), endpoint.unpackRemoteKey(key.packedDirect()));
            keys.put(key, copy);
        }
        return copy;
    }

    private void track(LaneGetOp op) {
        if (op.key != null) {
            op.key.inFlight++;
        }
        if (op.moreKeys != null) {
            for (LaneKey copy : op.moreKeys) {
                copy.inFlight++;
            }
        }
        op.next = head;
        if (head != null) {
            head.prev = op;
        }
        head = op;
    }

    /** Outside callbacks, once the op's outcome is delivered: it no longer holds its key copy. */
    void untrack(LaneGetOp op) {
        if (op.prev != null) {
            op.prev.next = op.next;
        } else if (head == op) {
            head = op.next;
        }
        if (op.next != null) {
            op.next.prev = op.prev;
        }
        op.prev = null;
        op.next = null;
        if (op.key != null) {
            op.key.inFlight--;
            op.key.closeIfUnused();
        }
        if (op.moreKeys != null) {
            for (LaneKey copy : op.moreKeys) {
                copy.inFlight--;
                copy.closeIfUnused();
            }
        }
    }

    /** The channel's key was released: new gets fail, and the copy is closed once the lane's gets with it are done. */
    void keyReleased(UcxRemoteKey key) {
        LaneKey copy = keys.remove(key);
        if (copy != null) {
            copy.retired = true;
            copy.closeIfUnused();
        }
    }

    /** Inside progress: the endpoint failed. Recorded only; the worker retires the lane after the pass. */
    private void failed(int status, String message) {
        if (failure == null && !closed) {
            failure = new UcxTransportException("UCX endpoint " + channel + " (event-loop lane) failed: " + message
                    + " (status " + status + ")", status);
            worker.laneFailed(this);
        }
    }

    UcxTransportException failure() {
        return failure;
    }

    /**
     * Takes no more gets (its worker forgets it) but lets UCX finish the ones in flight, until {@code deadlineNanos}:
     * a get is reported only once UCX is done with it, so a caller never reuses a buffer UCX may still write, and the
     * peer is left with no replies queued to an endpoint that went away.
     */
    void drain(UcxTransportException cause, long deadlineNanos) {
        drainCause = cause;
        drainDeadline = deadlineNanos;
    }

    /** Draining and ready to close: nothing in flight, the endpoint failed, or the time is up. */
    boolean drained(long nowNanos) {
        return head == null || failure != null || nowNanos - drainDeadline > 0;
    }

    UcxTransportException drainCause() {
        return failure != null ? failure : drainCause;
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * Outside callbacks: fails the gets in flight, closes the key copies and starts closing the endpoint. Returns the
     * close request (null when it could not start).
     */
    UcpRequest close(UcxTransportException cause) {
        if (closed) {
            return null;
        }
        closed = true;
        // A flushing close tells the peer to drop its endpoint to this lane (UCX's EP_REMOVED), which a forced one
        // does not; it is safe here, unlike on channels (see UcxChannel#closeEndpoint), as a lane only reads and so
        // never has replies to the peer's gets queued. But a failed endpoint can only be force-closed, and gets in
        // flight must be purged by a forced close before their keys are closed below.
        boolean force = failure != null || head != null;
        unflushed.clear(); // finished below with the other gets in flight
        for (LaneGetOp op = head; op != null; op = op.next) {
            op.finish(cause);
            if (op.key != null) {
                op.key.close(); // a released key waiting for these gets goes with the endpoint too
            }
            if (op.moreKeys != null) {
                for (LaneKey copy : op.moreKeys) {
                    copy.close();
                }
            }
        }
        UcpRequest closing = null;
        try {
            closing = force ? endpoint.closeNonBlockingForce() : endpoint.closeNonBlockingFlush();
        } catch (UcxException e) {
            log.debug("Closing the lane endpoint of " + channel + " failed: " + e.getMessage());
        }
        // As for channels: a forced close purges the endpoint's requests, whose late callbacks are ignored.
        for (LaneKey copy : keys.values()) {
            copy.close();
        }
        keys.clear();
        return closing;
    }
}
