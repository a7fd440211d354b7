package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import org.openucx.jucx.ucp.UcpAmData;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucs.UcsConstants;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One UCX endpoint to a peer: control frames both ways and one-sided gets of the peer's registered memory.
 *
 * <p>Thread-safe: every method may be called from any thread; each returned future, and each handler, runs on the
 * Vert.x context that made the call (or set the handler). When the endpoint fails, the channel closes, every pending
 * operation fails with a {@link UcxTransportException}, and later calls fail at once.
 *
 * <p>The channel holds the state every operation reads ({@code CONNECTING -> OPEN -> CLOSING -> CLOSED}, the close
 * cause, the peer's worker address) and checks calls; the work is done by its parts on the owner thread:
 * {@link ChannelHandshake} (hello exchange, opens the channel), {@link ChannelCloser} (close sequence),
 * {@link PendingOps} (operations in flight), {@link InboundFrames} (frame delivery), {@link RemoteKeyCache}.
 */
public final class UcxChannel {

    private static final AtomicLong IDS = new AtomicLong();

    private enum State { CONNECTING, OPEN, CLOSING, CLOSED }

    private final UcxWorkerVerticle owner;
    private final long id;
    private final InetSocketAddress peer;
    private final boolean accepted;
    // The state every operation reads, kept here (no hop on the get path); written by the handshake and the closer.
    private volatile State state = State.CONNECTING;
    private volatile UcxTransportException closeCause;
    private volatile byte[] peerWorkerAddress; // from the handshake; null: the peer gets no event-loop lanes

    // Owner-thread state.
    private UcpEndpoint endpoint;
    private long endpointId;
    private final PendingOps pending;
    private final RemoteKeyCache keys;
    private final InboundFrames frames = new InboundFrames(this);
    private final ChannelHandshake handshake;
    private final ChannelCloser closer;

    UcxChannel(UcxWorkerVerticle owner, InetSocketAddress peer, boolean accepted) {
        this.owner = owner;
        this.id = IDS.incrementAndGet();
        this.peer = peer;
        this.accepted = accepted;
        this.pending = new PendingOps(owner.loop());
        this.keys = new RemoteKeyCache(this, UcxSettings.MAX_REMOTE_KEYS);
        this.handshake = new ChannelHandshake(this, owner);
        this.closer = new ChannelCloser(this, owner);
    }

    /** Process-unique id, for logs. */
    public long id() {
        return id;
    }

    /** The peer's address: the address connected to, or the client's address on an accepted channel. */
    public InetSocketAddress peerAddress() {
        return peer;
    }

    /** Whether this channel was accepted by a listener (rather than connected). */
    public boolean isAccepted() {
        return accepted;
    }

    /** Open: handshake done and neither closed nor failed. */
    public boolean isOpen() {
        return state == State.OPEN;
    }

    /** Sends one frame (copied before this returns, so the buffer may be reused). */
    public Future<Void> send(Buffer frame) {
        if (frame == null) {
            return Future.failedFuture(new IllegalArgumentException("frame must not be null"));
        }
        if (frame.length() > UcxSettings.MAX_FRAME_BYTES) {
            return Future.failedFuture(new IllegalArgumentException("frame of " + frame.length()
                    + " bytes exceeds the largest control frame (" + UcxSettings.MAX_FRAME_BYTES + ")"));
        }
        UcxTransportException unusable = unusableReason();
        if (unusable != null) {
            return Future.failedFuture(unusable);
        }
        SendFrameOp op = new SendFrameOp(this, owner.callerContext(), NativeMemory.directCopy(frame));
        loop().execute(op);
        return op.future();
    }

    /** Sets the handler of incoming frames; it runs on the calling context. Frames that came earlier are delivered. */
    public UcxChannel frameHandler(Handler<Buffer> handler) {
        Context context = owner.callerContext();
        loop().execute(LoopTask.of(() -> frames.setHandler(handler, context)));
        return this;
    }

    /**
     * Sets the handler told when the channel closes: with the failure when the endpoint failed or the peer went
     * away, with {@code null} after a local {@link #close()}. Runs at once if the channel is already closed.
     */
    public UcxChannel closeHandler(Handler<Throwable> handler) {
        Context context = owner.callerContext();
        loop().execute(LoopTask.of(() -> closer.setHandler(handler, context)));
        return this;
    }

    /**
     * Unpacks a peer's packed memory key, cached by content: unpacking the same bytes again returns the same key.
     * Each successful call is one hold on the key; {@link #releaseRemoteKey} drops it, and the key is closed once
     * no holder remains and no get that uses it is in flight (or when the channel closes). At most
     * {@link UcxSettings#MAX_REMOTE_KEYS} keys are held per channel; beyond that the unpack fails.
     */
    public Future<UcxRemoteKey> unpackRemoteKey(byte[] packed) {
        if (packed == null || packed.length == 0) {
            return Future.failedFuture(new IllegalArgumentException("packed remote key must not be empty"));
        }
        UcxTransportException unusable = unusableReason();
        if (unusable != null) {
            return Future.failedFuture(unusable);
        }
        UnpackKeyOp op = new UnpackKeyOp(this, owner.callerContext(), packed.clone());
        loop().execute(op);
        return op.future();
    }

    /**
     * Drops one hold on a key from {@link #unpackRemoteKey}. After the last one, new gets with the key fail
     * ({@link UcxRemoteKey#isValid()} turns false), gets already in flight finish, and then the key is closed.
     * Releasing a key of a closed channel, or more often than it was unpacked, does nothing.
     */
    public Future<Void> releaseRemoteKey(UcxRemoteKey key) {
        if (key == null || key.channel() != this) {
            return Future.failedFuture(new IllegalArgumentException(
                    "remote key must have been unpacked on this channel (" + this + ")"));
        }
        return owner.submit(owner.callerContext(), () -> {
            release(key);
            return null;
        }, stopped -> Future.succeededFuture()); // the worker stopped: its keys are gone anyway
    }

    /** Remote keys on this channel (unpacked, not fully released), for diagnostics and tests. */
    public Future<Integer> remoteKeyCount() {
        return onLoop(() -> keys.size());
    }

    /** Holds on this channel's remote keys: unpacks not yet released, for diagnostics and tests. */
    public Future<Integer> remoteKeyHolds() {
        return onLoop(keys::holds);
    }

    private Future<Integer> onLoop(java.util.function.IntSupplier count) {
        return owner.submit(owner.callerContext(), count::getAsInt, stopped -> Future.succeededFuture(0));
    }

    /**
     * Reads {@code length} bytes at {@code remoteAddress} of the peer's memory (described by {@code key}) into local
     * memory at {@code localAddress}, which should lie in a region registered with this worker.
     *
     * <p>Called on an event loop of the worker's Vert.x, the get runs on that event loop's lane (its own UCX worker and
     * endpoint to the peer), and may complete before this returns; from any other thread it goes through the
     * worker's owner thread.
     */
    public Future<Void> get(long remoteAddress, UcxRemoteKey key, long localAddress, long length) {
        if (key == null || key.channel() != this) {
            return Future.failedFuture(new IllegalArgumentException(
                    "remote key must have been unpacked on this channel (" + this + ")"));
        }
        if (length <= 0) {
            return Future.failedFuture(new IllegalArgumentException("get length must be positive, got " + length));
        }
        if (localAddress == 0) {
            return Future.failedFuture(new IllegalArgumentException("local address must not be 0"));
        }
        UcxTransportException unusable = unusableReason();
        if (unusable != null) {
            return Future.failedFuture(unusable);
        }
        LaneRegistry lanes = owner.lanes();
        Future<Void> onLane = lanes == null ? null : lanes.get(this, remoteAddress, key, localAddress, length);
        if (onLane != null) {
            return onLane;
        }
        GetOp op = new GetOp(this, owner.callerContext(), remoteAddress, key, localAddress, length);
        loop().execute(op);
        return op.future();
    }

    /**
     * The {@code length} bytes at {@code remoteAddress} of the peer's memory where they lie, when UCX has mapped that
     * memory into this process (a same-host peer's shared memory) and the caller runs on an event loop with a lane
     * to the peer; held until the view is released ({@link PeerView}). {@code regionAddress} and {@code regionLength}
     * are the peer's region that {@code key} registers, in which the bytes lie. Null otherwise, or when the key or
     * channel is no longer usable: the caller then {@link #get}s the bytes, which also reports why.
     */
    public PeerView view(long regionAddress, long regionLength, UcxRemoteKey key, long remoteAddress, int length) {
        return view(regionAddress, regionLength, key, remoteAddress, length, false);
    }

    /**
     * The {@code length} bytes at {@code remoteAddress} of the peer's memory where they lie, as
     * {@link #view(long, long, UcxRemoteKey, long, int)} gives them, handed to {@code use} on the caller's context:
     * at once, or, past the event loop's budget of completions inside their call, by its next polling task. False
     * when the memory is not mapped here (or the key, channel or lane is not usable): the caller then gets the bytes,
     * and {@code use} is never called.
     */
    public boolean view(long regionAddress, long regionLength, UcxRemoteKey key, long remoteAddress, int length,
                        Handler<PeerView> use) {
        return view(regionAddress, regionLength, key, null, remoteAddress, length, use);
    }

    /**
     * As {@link #view(long, long, UcxRemoteKey, long, int, Handler)}, where the region is also {@code file} (null:
     * none), the peer's file that a process on its host may map ({@link PeerFile}): its bytes are used where they lie
     * when UCX has not mapped the region here.
     */
    public boolean view(long regionAddress, long regionLength, UcxRemoteKey key, PeerFile file, long remoteAddress,
                        int length, Handler<PeerView> use) {
        if (key == null || key.channel() != this || length <= 0 || unusableReason() != null) {
            return false;
        }
        LaneRegistry lanes = owner.lanes();
        return lanes != null && lanes.view(this, key, file, regionAddress, regionLength, remoteAddress, length, use);
    }

    /**
     * The views one call (a batch) takes of the region ({@code regionAddress}, {@code regionLength}) under
     * {@code key} in this pass of the calling event loop, as {@code view(..., sameCall)} takes them, the lane and key
     * found once ({@link PeerViews}). Null when that memory is not mapped here, the caller has no lane to the peer, or
     * the key or channel is no longer usable: the caller then gets the bytes.
     */
    public PeerViews views(long regionAddress, long regionLength, UcxRemoteKey key) {
        return views(regionAddress, regionLength, key, null);
    }

    /** As {@link #views(long, long, UcxRemoteKey)}, where the region is also {@code file} (null: none). */
    public PeerViews views(long regionAddress, long regionLength, UcxRemoteKey key, PeerFile file) {
        if (key == null || key.channel() != this || unusableReason() != null) {
            return null;
        }
        LaneRegistry lanes = owner.lanes();
        return lanes == null ? null : lanes.views(this, key, file, regionAddress, regionLength);
    }

    /**
     * As {@link #view(long, long, UcxRemoteKey, long, int)}; {@code sameCall}: another view for a call that already
     * took one in this pass of the event loop (a batch), which completes with it as one, as a batch of gets does.
     */
    public PeerView view(long regionAddress, long regionLength, UcxRemoteKey key, long remoteAddress, int length,
                         boolean sameCall) {
        return view(regionAddress, regionLength, key, null, remoteAddress, length, sameCall);
    }

    /** As {@link #view(long, long, UcxRemoteKey, long, int, boolean)}, where the region is also {@code file}. */
    public PeerView view(long regionAddress, long regionLength, UcxRemoteKey key, PeerFile file, long remoteAddress,
                         int length, boolean sameCall) {
        if (key == null || key.channel() != this || length <= 0 || unusableReason() != null) {
            return null;
        }
        LaneRegistry lanes = owner.lanes();
        return lanes == null ? null
                : lanes.view(this, key, file, regionAddress, regionLength, remoteAddress, length, sameCall);
    }

    /**
     * Every get of {@code batch} (each key unpacked on this channel); completes once all are done, failed when any
     * failed (the caller cannot tell which bytes arrived, so it must treat them all as unread). On an event loop with
     * a lane, they are posted implicit with one flush; elsewhere each takes the owner path as {@link #get} does.
     */
    public Future<Void> getAll(GetBatch batch) {
        for (int i = 0; i < batch.size(); i++) {
            if (batch.key(i).channel() != this) {
                return Future.failedFuture(new IllegalArgumentException(
                        "remote key must have been unpacked on this channel (" + this + ")"));
            }
        }
        if (batch.size() == 0) {
            return Future.succeededFuture();
        }
        UcxTransportException unusable = unusableReason();
        if (unusable != null) {
            return Future.failedFuture(unusable);
        }
        LaneRegistry lanes = owner.lanes();
        Future<Void> onLane = lanes == null ? null : lanes.getAll(this, batch);
        if (onLane != null) {
            return onLane;
        }
        List<Future<Void>> gets = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            gets.add(get(batch.remoteAddress(i), batch.key(i), batch.localAddress(i), batch.length(i)));
        }
        return Future.all(gets).mapEmpty();
    }

    /** Flushes outstanding operations, then closes the endpoint; completes once it is closed. */
    public Future<Void> close() {
        Context context = owner.callerContext();
        return owner.hand(context, promise -> closer.closeOrderly(promise, context),
                stopped -> Future.succeededFuture());
    }

    @Override
    public String toString() {
        return "ucx-channel#" + id + (accepted ? "(from " : "(to ") + hostPort(peer) + ")";
    }

    // ---- package-private, owner thread unless said otherwise ----

    WorkerLoop loop() {
        return owner.loop();
    }

    UcxMetrics metrics() {
        return owner.metrics();
    }

    UcxSettings settings() {
        return owner.settings();
    }

    UcpEndpoint endpoint() {
        return endpoint;
    }

    long endpointId() {
        return endpointId;
    }

    void attach(UcpEndpoint ep) {
        this.endpoint = ep;
        this.endpointId = ep.getNativeId();
    }

    ChannelHandshake handshake() {
        return handshake;
    }

    ChannelCloser closer() {
        return closer;
    }

    PendingOps pending() {
        return pending;
    }

    RemoteKeyCache keys() {
        return keys;
    }

    /** Any thread: the peer worker's address from the handshake, or null (an older peer: no lanes). */
    byte[] peerWorkerAddress() {
        return peerWorkerAddress;
    }

    /** Any thread: why a new operation cannot run, or null when it can. */
    UcxTransportException unusableReason() {
        State s = state;
        if (s == State.OPEN) {
            return null;
        }
        UcxTransportException cause = closeCause;
        if (cause != null) {
            return cause;
        }
        return new UcxTransportException(s == State.CONNECTING ? this + " is not connected yet" : this + " is closed");
    }

    UcxTransportException operationError(String what, int status, String message) {
        return new UcxTransportException("UCX " + what + " on " + this + " failed: " + message + " (status " + status
                + ")",
                status);
    }

    // ---- the state: written here only, by the handshake and the closer (owner thread) ----

    boolean isConnecting() {
        return state == State.CONNECTING;
    }

    boolean isClosed() {
        return state == State.CLOSED;
    }

    /** Why the channel closed (or is closing), or null after a local close. */
    UcxTransportException closeCause() {
        return closeCause;
    }

    /** The close cause, or a plain "is closed" error after a local close. */
    UcxTransportException closedError() {
        UcxTransportException cause = closeCause;
        return cause != null ? cause : new UcxTransportException(this + " is closed");
    }

    /** The handshake is done: CONNECTING to OPEN. False (nothing changes) in any other state. */
    boolean opened(byte[] workerAddress) {
        if (state != State.CONNECTING) {
            return false;
        }
        peerWorkerAddress = workerAddress; // before the state: a reader that sees OPEN sees the address
        state = State.OPEN;
        metrics().channelOpened();
        return true;
    }

    /**
     * Starts closing: records {@code cause} if it is the first, and goes to CLOSING. False when the channel already
     * was closing or closed.
     */
    boolean closing(UcxTransportException cause) {
        if (cause != null && closeCause == null) {
            closeCause = cause; // before the state: a reader that sees CLOSING sees the cause
        }
        State s = state;
        if (s == State.CLOSING || s == State.CLOSED) {
            return false;
        }
        state = State.CLOSING;
        return true;
    }

    /** UCX closed the endpoint: CLOSED; incoming frames not yet delivered are dropped. */
    void closed() {
        state = State.CLOSED;
        metrics().channelClosed();
        frames.clear();
    }

    /** Fails the channel (see {@link ChannelCloser#fail}). */
    void fail(UcxTransportException cause) {
        closer.fail(cause);
    }

    // ---- operations and frames ----

    void track(ChannelOp<?> op) {
        pending.add(op);
    }

    void untrack(ChannelOp<?> op) {
        pending.remove(op);
        if (keys.hasRetiring()) {
            keys.closeRetired(pending);
        }
    }

    /** One more hold on the UCX memory key for the packed bytes, unpacked once per channel; null when full. */
    UcxRemoteKey remoteKey(byte[] packed) {
        return keys.hold(packed, endpoint);
    }

    /** Drops a hold; the last one takes the key out of the cache and closes it once no get uses it. */
    private void release(UcxRemoteKey key) {
        if (state != State.CLOSED && !closer.endpointClosing() && keys.release(key, pending)) {
            owner.lanes().keyReleased(key);
        }
    }

    /** Inside a UCX callback: the endpoint failed. Everything pending fails; the endpoint is force-closed. */
    void endpointFailed(int status, String message) {
        fail(new UcxTransportException("UCX endpoint " + this + " failed: " + message + " (status " + status + ")",
                status));
    }

    /** Inside a UCX callback: an incoming frame. Copies the data out (it is only valid during the callback). */
    int frameArrived(UcpAmData data) {
        if (state != State.OPEN) {
            return UcsConstants.STATUS.UCS_OK;
        }
        long length = data.getLength();
        if (length > UcxSettings.MAX_FRAME_BYTES) {
            metrics().error();
            fail(new UcxTransportException(hostPort(peer) + " sent a frame of " + length
                    + " bytes, more than the largest control frame (" + UcxSettings.MAX_FRAME_BYTES + ") on "
                    + this));
            return UcsConstants.STATUS.UCS_OK;
        }
        frames.arrived(data, length);
        return UcsConstants.STATUS.UCS_OK;
    }

    static String hostPort(InetSocketAddress address) {
        return address == null ? "?" : address.getHostString() + ":" + address.getPort();
    }
}
