package org.seaweedfs.rdma.sidecar.connection;

import org.seaweedfs.rdma.sidecar.ReadFailure;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import org.seaweedfs.rdma.protocol.ControlCodec;
import org.seaweedfs.rdma.protocol.ControlMessage;
import org.seaweedfs.rdma.protocol.ErrorCode;
import org.seaweedfs.rdma.protocol.ErrorReply;
import org.seaweedfs.rdma.protocol.Hello;
import org.seaweedfs.rdma.protocol.HelloOk;
import org.seaweedfs.rdma.protocol.Lookup;
import org.seaweedfs.rdma.protocol.LookupResult;
import org.seaweedfs.rdma.protocol.Ping;
import org.seaweedfs.rdma.protocol.Pong;
import org.seaweedfs.rdma.protocol.ProtocolException;
import org.seaweedfs.rdma.protocol.ReadThrough;
import org.seaweedfs.rdma.protocol.ReadThroughData;
import org.seaweedfs.rdma.protocol.Segment;
import org.seaweedfs.rdma.protocol.SyncEntries;
import org.seaweedfs.rdma.protocol.SyncEntryReader;
import org.seaweedfs.rdma.protocol.SyncRequest;
import org.seaweedfs.rdma.protocol.VolumeChanged;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.protocol.VolumeList;
import org.seaweedfs.rdma.protocol.VolumeListRequest;
import org.seaweedfs.rdma.ucx.UcxChannel;
import org.seaweedfs.rdma.ucx.UcxRemoteKey;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;
import org.seaweedfs.rdma.ucx.VertxInternals;
import org.seaweedfs.rdma.volume.FileId;

/**
 * One control channel to one agent, for the lifetime of one UCX endpoint: handshake, request/reply correlation,
 * the volume list with remote keys unpacked on this channel, and a mirror of each volume's needle map kept
 * current by full syncs and pushed increments. It never reconnects: when the channel closes (or {@link #close()}
 * is called) the connection is {@link State#CLOSED} for good, its remote keys and mirrors are dropped, pending
 * requests fail with a retriable {@link ReadFailure} UNAVAILABLE, and {@link #closeFuture()} completes. The
 * connection manager makes a new one.
 *
 * <p>Threads: the connection lives on the Vert.x context that called {@link #connect} (its home context); all
 * of its bookkeeping runs there. Public methods may be called from any thread; every returned future completes
 * on the caller's context. {@link #mirror} is a lock-free read for the read path.
 */
public final class AgentConnection {

    private static final Logger log = LoggerFactory.getLogger(AgentConnection.class);
    /** The .idx entry width assumed when sizing a mirror before its sync (16; 17 for 5-byte offsets is close). */
    private static final int IDX_ENTRY_BYTES = 16;
    /**
     * A mirror is pre-sized from the agent's idxPosition up to this many entries and grows as entries arrive, so a
     * claim (a wrong or hostile agent) cannot make this side allocate for entries it was never sent.
     */
    static final int MAX_PRESIZED_ENTRIES = 1 << 16;

    /** CONNECTING -> HANDSHAKING -> SYNCING -> READY -> CLOSED; any state may go to CLOSED. */
    public enum State { CONNECTING, HANDSHAKING, SYNCING, READY, CLOSED }

    /**
     * @param host                   agent host
     * @param port                   agent control port
     * @param clientId               this sidecar's name in the agent's logs
     * @param token                  the agent's shared secret, or null
     * @param requestTimeoutMs       how long a request waits for its reply
     * @param maxOutstandingRequests requests in flight at once; more fail at once (UNAVAILABLE, overloaded)
     * @param maxFrameBytes          largest control frame (both peers should agree; protocol default 4 MiB)
     */
    public record Options(String host, int port, String clientId, String token, long requestTimeoutMs,
                          int maxOutstandingRequests, int maxFrameBytes) {
        public Options {
            Objects.requireNonNull(host, "agent host");
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("agent port must be 1..65535, got " + port);
            }
            if (clientId == null || clientId.isEmpty()) {
                throw new IllegalArgumentException("client id must not be empty");
            }
            if (requestTimeoutMs < 1) {
                throw new IllegalArgumentException("request timeout must be at least 1 ms, got " + requestTimeoutMs);
            }
            if (maxOutstandingRequests < 1) {
                throw new IllegalArgumentException("max outstanding requests must be at least 1, got " + maxOutstandingRequests);
            }
            new ControlCodec(maxFrameBytes); // validates the range
        }

        public static Options of(String host, int port, String clientId, String token) {
            return new Options(host, port, clientId, token, 5_000, 4096, ControlCodec.DEFAULT_MAX_FRAME_BYTES);
        }
    }

    /** A request waiting for its reply; completed exactly once, by the reply, the timeout or the close. */
    private static final class Pending {
        final Promise<ControlMessage> promise;
        final String what;
        volatile long timerId = -1;

        Pending(Promise<ControlMessage> promise, String what) {
            this.promise = promise;
            this.what = what;
        }
    }

    private final Vertx vertx;
    private final Options options;
    private final ControlCodec codec;
    private final Context home;
    private final UcxChannel channel;
    private final String peer;
    private final AtomicLong nextRequestId = new AtomicLong();
    private final AtomicInteger outstanding = new AtomicInteger();
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final Map<Long, VolumeMirror> mirrors = new ConcurrentHashMap<>();
    private final Promise<Void> closed;
    private volatile State state = State.HANDSHAKING;
    private volatile Throwable closeCause;
    private volatile String agentId = "";
    private final AtomicLong droppedFrames = new AtomicLong();

    // Home-context state.
    private final Set<NeedleMapMirror> pulling = new HashSet<>();
    /** The last mirror write queued (see {@link #write}). */
    private Future<Void> writes = Future.succeededFuture();
    private boolean listing;
    private List<Promise<Void>> waitingForThisList = new ArrayList<>();
    private List<Promise<Void>> waitingForNextList = new ArrayList<>();

    private AgentConnection(Vertx vertx, Options options, Context home, UcxChannel channel) {
        this.vertx = vertx;
        this.options = options;
        this.codec = new ControlCodec(options.maxFrameBytes());
        this.home = home;
        this.channel = channel;
        this.peer = options.host() + ":" + options.port();
        this.closed = VertxInternals.promise(home);
    }

    /**
     * Connects, says Hello, fetches the volume list and fully syncs every volume's needle map; completes (on the
     * caller's context) once the connection is {@link State#READY}. Fails with {@link AgentError} UNAUTHORIZED
     * (not retriable) when the agent refuses the token, with a retriable {@link ReadFailure} UNAVAILABLE when
     * the agent cannot be reached, and with TIMEOUT when it does not answer in time.
     */
    public static Future<AgentConnection> connect(Vertx vertx, UcxWorkerVerticle ucx, Options options) {
        Context caller = VertxInternals.callerContext(vertx);
        Promise<AgentConnection> result = VertxInternals.promise(caller);
        Context home = caller.isEventLoopContext() ? caller : vertx.getOrCreateContext();
        home.runOnContext(v -> ucx.connect(options.host(), options.port())
                .recover(e -> Future.failedFuture(ReadFailure.unavailable(
                        "cannot reach agent " + options.host() + ":" + options.port() + ": " + e.getMessage(), e)))
                .compose(channel -> {
                    AgentConnection connection = new AgentConnection(vertx, options, home, channel);
                    return connection.open().recover(e -> connection.close().transform(x -> Future.failedFuture(e)));
                })
                .onComplete(result));
        return result.future();
    }

    // ---- public API ----

    public State state() {
        return state;
    }

    public boolean isReady() {
        return state == State.READY;
    }

    /** The agent's id from its HelloOk (it changes when the agent restarts). */
    public String agentId() {
        return agentId;
    }

    /** host:port of the agent. */
    public String peer() {
        return peer;
    }

    /** Completes (successfully, on the home context) once the connection is closed, for whatever reason. */
    public Future<Void> closeFuture() {
        return closed.future();
    }

    /** Why the connection closed: the transport failure, or null after a local {@link #close()} (or while open). */
    public Throwable closeCause() {
        return closeCause;
    }

    /** Runs {@code handler} on the caller's context with {@link #closeCause()} once the connection closes. */
    public AgentConnection closeHandler(Handler<Throwable> handler) {
        Context caller = VertxInternals.callerContext(vertx);
        closed.future().onComplete(v -> caller.runOnContext(x -> handler.handle(closeCause)));
        return this;
    }

    /** The mirror of a volume, or null when the agent does not list it (or the connection is closed). Any thread. */
    public VolumeMirror mirror(long volumeId) {
        return mirrors.get(volumeId);
    }

    /** Volume ids the agent serves, as of the last list. */
    public Set<Long> volumeIds() {
        return Set.copyOf(mirrors.keySet());
    }

    /** Requests waiting for their reply. */
    public int outstandingRequests() {
        return outstanding.get();
    }

    /** Frames that could not be decoded or arrived too late (after their request timed out). */
    public long droppedFrames() {
        return droppedFrames.get();
    }

    /** The codec's limit on one read-through request. */
    public int maxReadThroughBytes() {
        return codec.maxReadThroughBytes();
    }

    /** Round trip of a Ping, measured on this side's clock. */
    public Future<Duration> ping() {
        return request(id -> new Ping(id, System.nanoTime()), Pong.class, "Ping")
                .map(pong -> Duration.ofNanos(System.nanoTime() - pong.sentNanos()));
    }

    /** Where the agent has the needle now (not found is a normal result). */
    public Future<LookupResult> lookup(FileId fid) {
        return request(id -> new Lookup(id, fid.volumeId(), fid.key(), fid.cookie()), LookupResult.class, "Lookup");
    }

    /** {@code length} bytes at {@code offset} of the needle's record, copied by the agent (the degraded path). */
    public Future<ReadThroughData> readThrough(FileId fid, long offset, int length) {
        return request(id -> new ReadThrough(id, fid.volumeId(), fid.key(), fid.cookie(), offset, length),
                ReadThroughData.class, "ReadThrough");
    }

    /**
     * Fetches the volume list again and applies it (new segments' keys unpacked, new epochs given fresh mirrors
     * whose sync starts in the background). Completes once a list asked for after this call is applied.
     */
    public Future<Void> refreshVolumes() {
        Promise<Void> done = VertxInternals.promise(VertxInternals.callerContext(vertx));
        home.runOnContext(v -> {
            (listing ? waitingForNextList : waitingForThisList).add(done);
            if (!listing) {
                fetchVolumeList(false);
            }
        });
        return done.future();
    }

    /** The control channel (its remote keys back the mirrors), for diagnostics and tests. */
    UcxChannel channel() {
        return channel;
    }

    /** Closes the channel; pending requests fail UNAVAILABLE. Completes on the caller's context. */
    public Future<Void> close() {
        Promise<Void> done = VertxInternals.promise(VertxInternals.callerContext(vertx));
        home.runOnContext(v -> {
            shutDown(null);
            channel.close().onComplete(x -> done.tryComplete());
        });
        return done.future();
    }

    @Override
    public String toString() {
        return "AgentConnection[" + peer + ", " + state + (agentId.isEmpty() ? "" : ", agent " + agentId) + "]";
    }

    // ---- opening (home context) ----

    private Future<AgentConnection> open() {
        channel.frameHandler(this::onFrame);
        channel.closeHandler(cause -> shutDown(cause == null
                ? new ReadFailure(ReadFailure.Kind.UNAVAILABLE, "channel to agent " + peer + " closed")
                : ReadFailure.unavailable("channel to agent " + peer + " failed: " + cause.getMessage(), cause)));
        return request(id -> new Hello(id, ControlCodec.PROTOCOL_VERSION, options.clientId(), options.token()),
                HelloOk.class, "Hello")
                .recover(e -> Future.failedFuture(e instanceof AgentError error && error.code() == ErrorCode.UNAUTHORIZED
                        ? new AgentError(ErrorCode.UNAUTHORIZED, "agent " + peer + " refused this sidecar's token: "
                        + error.getMessage(), false) : e))
                .compose(ok -> {
                    agentId = ok.agentId();
                    state = State.SYNCING;
                    return fetchVolumeList(true);
                })
                .map(v -> {
                    if (state == State.SYNCING) {
                        state = State.READY;
                        log.info("Connected to agent " + agentId + " at " + peer + ": " + mirrors.size() + " volumes");
                    }
                    return this;
                });
    }

    // ---- volume list and sync (home context) ----

    /** Fetches and applies the list; with {@code awaitSync} it completes only when every new mirror is synced. */
    private Future<Void> fetchVolumeList(boolean awaitSync) {
        listing = true;
        List<Promise<Void>> waiters = waitingForThisList;
        waitingForThisList = new ArrayList<>();
        Future<Void> applied = request(VolumeListRequest::new, VolumeList.class, "VolumeListRequest")
                .compose(list -> applyVolumeList(list.volumes(), awaitSync));
        applied.onComplete(ar -> {
            waiters.forEach(w -> w.handle(ar));
            listing = false;
            if (!waitingForNextList.isEmpty() && state != State.CLOSED) {
                waitingForThisList = waitingForNextList;
                waitingForNextList = new ArrayList<>();
                fetchVolumeList(false);
            }
        });
        return applied;
    }

    private Future<Void> applyVolumeList(List<VolumeInfo> volumes, boolean awaitSync) {
        Set<Long> listed = new HashSet<>();
        List<Future<Void>> work = new ArrayList<>();
        for (VolumeInfo info : volumes) {
            listed.add(info.volumeId());
            VolumeMirror current = mirrors.get(info.volumeId());
            if (current != null && current.epoch() == info.epoch()) {
                if (!current.info().equals(info)) {
                    work.add(publish(info, current.needles()));
                }
            } else {
                NeedleMapMirror needles = new NeedleMapMirror(info.volumeId(), info.epoch(),
                        (int) Math.min(MAX_PRESIZED_ENTRIES, info.idxPosition() / IDX_ENTRY_BYTES));
                Future<Void> published = publish(info, needles);
                Future<Void> synced = published.compose(v -> pull(needles));
                work.add(awaitSync ? synced : published);
                synced.onFailure(e -> log.warn("Sync of volume " + info.volumeId() + " from agent " + peer
                        + " failed: " + e.getMessage()));
            }
        }
        for (Long vid : List.copyOf(mirrors.keySet())) {
            if (!listed.contains(vid)) {
                drop(vid);
            }
        }
        return Future.all(work).mapEmpty();
    }

    /**
     * Unpacks the segments' keys on this channel, then publishes the mirror for readers. Each mirror holds its
     * keys until it is replaced or dropped ({@link #release}), so a long-lived connection to a volume that grows
     * (its tail segment re-mapped) or is compacted does not accumulate keys.
     */
    private Future<Void> publish(VolumeInfo info, NeedleMapMirror needles) {
        List<Segment> keyed = info.keyedSegments(); // the .dat's segments, then any EC shards' (issue 13)
        List<Future<UcxRemoteKey>> keys = new ArrayList<>(keyed.size());
        for (Segment segment : keyed) {
            keys.add(channel.unpackRemoteKey(segment.remoteKey()));
        }
        return Future.join(keys).transform(ar -> {
            if (ar.failed()) {
                keys.stream().filter(Future::succeeded).forEach(k -> channel.releaseRemoteKey(k.result()));
                return Future.failedFuture(ar.cause());
            }
            List<UcxRemoteKey> unpacked = keys.stream().map(Future::result).toList();
            VolumeMirror current = mirrors.get(info.volumeId());
            // A newer epoch may have been published meanwhile; never go back to an older one.
            if (state != State.CLOSED && (current == null || current.needles() == needles || current.epoch() != needles.epoch())) {
                release(mirrors.put(info.volumeId(), new VolumeMirror(info, unpacked, needles, peer)));
            } else {
                unpacked.forEach(channel::releaseRemoteKey);
            }
            return Future.succeededFuture();
        });
    }

    /** Home context: a volume's mirror goes (re-listed, compacted, removed); readers holding it fail stale. */
    private void drop(long volumeId) {
        release(mirrors.remove(volumeId));
    }

    /** Releases a replaced or dropped mirror's holds on its keys (keys it shares with the new one stay held). */
    private void release(VolumeMirror old) {
        if (old != null && state != State.CLOSED) {
            old.keys().forEach(channel::releaseRemoteKey);
        }
    }

    /** Pulls SyncEntries from the mirror's position until the agent says there are no more. */
    private Future<Void> pull(NeedleMapMirror needles) {
        if (!pulling.add(needles)) {
            return Future.succeededFuture();
        }
        Promise<Void> done = Promise.promise();
        pullNext(needles, done);
        return done.future().onComplete(ar -> pulling.remove(needles));
    }

    private void pullNext(NeedleMapMirror needles, Promise<Void> done) {
        if (!isCurrent(needles)) {
            done.tryComplete(); // replaced or dropped: nothing left to sync
            return;
        }
        request(id -> new SyncRequest(id, needles.volumeId(), needles.epoch(), needles.position()), SyncEntries.class,
                "SyncRequest")
                .onSuccess(entries -> write(() -> apply(needles, entries)).onComplete(applied -> {
                    if (applied.failed()) {
                        done.tryFail(applied.cause());
                    } else if (entries.more()) {
                        pullNext(needles, done);
                    } else {
                        needles.markSynced();
                        done.tryComplete();
                    }
                }))
                .onFailure(e -> {
                    if (e instanceof AgentError error && error.code() == ErrorCode.STALE_EPOCH) {
                        dropAndRelist(needles.volumeId());
                        done.tryComplete();
                    } else {
                        done.tryFail(e);
                    }
                });
    }

    /** Worker thread (see {@link #write}): applies the part of {@code entries} that continues the mirror; false on a gap. */
    private boolean apply(NeedleMapMirror needles, SyncEntries entries) {
        if (entries.epoch() != needles.epoch()) {
            throw new IllegalStateException("volume " + needles.volumeId() + ": entries of epoch " + entries.epoch()
                    + " for a mirror of epoch " + needles.epoch());
        }
        long at = needles.position();
        if (entries.fromPosition() > at) {
            return false;
        }
        if (entries.toPosition() <= at) {
            return true; // already applied
        }
        int count = entries.entryCount();
        SyncEntryReader reader = entries.reader();
        int skip = 0;
        if (entries.fromPosition() < at) {
            long width = (entries.toPosition() - entries.fromPosition()) / count;
            skip = (int) ((at - entries.fromPosition()) / width);
            for (int i = 0; i < skip; i++) {
                reader.next();
            }
        }
        needles.apply(at, entries.toPosition(), reader, count - skip);
        return true;
    }

    private void onPushedEntries(SyncEntries entries) {
        VolumeMirror mirror = mirrors.get(entries.volumeId());
        if (mirror == null || mirror.epoch() != entries.epoch()) {
            return; // a volume being re-listed; its new mirror syncs from 0
        }
        NeedleMapMirror needles = mirror.needles();
        write(() -> apply(needles, entries)).onComplete(applied -> {
            if (applied.succeeded()) {
                if (!applied.result() && !pulling.contains(needles) && isCurrent(needles)) {
                    pull(needles); // a lost push: resync from our own position
                }
            } else if (isCurrent(needles)) {
                log.warn("Agent " + peer + " pushed unusable entries for volume " + entries.volumeId() + ": "
                        + applied.cause().getMessage() + "; resyncing it");
                dropAndRelist(entries.volumeId());
            }
        });
    }

    /** Home context: true while {@code needles} is the published mirror of its volume. */
    private boolean isCurrent(NeedleMapMirror needles) {
        VolumeMirror current = mirrors.get(needles.volumeId());
        return state != State.CLOSED && current != null && current.needles() == needles;
    }

    /**
     * Home context: runs a mirror write on a worker thread, after every write queued before it. One sync frame
     * carries up to ~200k entries and a growing mirror is copied whole, which must not run on the home event loop;
     * the chain keeps NeedleMapMirror's rule of one writer at a time (each write starts when the previous one has
     * completed back on this context, which also orders their memory effects).
     */
    private <T> Future<T> write(Callable<T> work) {
        Future<T> result = writes.transform(x -> home.executeBlocking(work, false));
        writes = result.transform(x -> Future.succeededFuture());
        return result;
    }

    private void onVolumeChanged(VolumeChanged changed) {
        if (changed.reason() == VolumeChanged.Reason.COMPACTED || changed.reason() == VolumeChanged.Reason.REMOVED) {
            drop(changed.volumeId()); // old offsets are invalid from now on
        }
        refreshVolumes();
    }

    private void dropAndRelist(long volumeId) {
        drop(volumeId);
        refreshVolumes();
    }

    // ---- requests and frames ----

    private <T extends ControlMessage> Future<T> request(LongFunction<ControlMessage> build, Class<T> replyType,
                                                        String what) {
        if (state == State.CLOSED) {
            return VertxInternals.onCallerContext(vertx, Future.failedFuture(unavailable(what)));
        }
        if (outstanding.incrementAndGet() > options.maxOutstandingRequests()) {
            outstanding.decrementAndGet();
            return VertxInternals.onCallerContext(vertx, Future.failedFuture(ReadFailure.overloaded("agent " + peer
                    + " is overloaded: " + options.maxOutstandingRequests() + " requests outstanding")));
        }
        long id = nextRequestId.incrementAndGet();
        byte[] frame;
        try {
            frame = codec.encode(build.apply(id));
        } catch (ProtocolException e) {
            outstanding.decrementAndGet();
            return VertxInternals.onCallerContext(vertx, Future.failedFuture(e));
        }
        Pending waiting = new Pending(VertxInternals.promise(VertxInternals.callerContext(vertx)), what);
        pending.put(id, waiting);
        waiting.timerId = vertx.setTimer(options.requestTimeoutMs(), t -> {
            if (finish(id) == waiting) {
                waiting.promise.tryFail(new ReadFailure(ReadFailure.Kind.TIMEOUT, "agent " + peer + " did not answer "
                        + what + " within " + options.requestTimeoutMs() + " ms"));
            }
        });
        if (state == State.CLOSED && finish(id) == waiting) { // closed between the check and the put
            waiting.promise.tryFail(unavailable(what));
        }
        channel.send(Buffer.buffer(frame)).onFailure(e -> {
            if (finish(id) == waiting) {
                waiting.promise.tryFail(ReadFailure.unavailable("sending " + what + " to agent " + peer + " failed: "
                        + e.getMessage(), e));
            }
        });
        return waiting.promise.future().map(reply -> {
            if (reply instanceof ErrorReply error) {
                throw new AgentError(error.code(), "agent " + peer + " answered " + what + " with " + error.code()
                        + (error.message().isEmpty() ? "" : ": " + error.message()), error.retriable());
            }
            if (!replyType.isInstance(reply)) {
                throw new IllegalStateException("agent " + peer + " answered " + what + " with " + reply.type());
            }
            return replyType.cast(reply);
        });
    }

    /** Takes a request out of the table once (reply, timeout, send failure or close race for it). */
    private Pending finish(long id) {
        Pending waiting = pending.remove(id);
        if (waiting != null) {
            outstanding.decrementAndGet();
            vertx.cancelTimer(waiting.timerId);
        }
        return waiting;
    }

    private ReadFailure unavailable(String what) {
        Throwable cause = closeCause;
        return ReadFailure.unavailable("connection to agent " + peer + " is closed; " + what + " not sent", cause);
    }

    /** Home context: one frame from the agent. */
    private void onFrame(Buffer frame) {
        ControlMessage message;
        try {
            message = codec.decode(VertxInternals.nioView(frame));
        } catch (ProtocolException e) {
            droppedFrames.incrementAndGet();
            log.warn("Undecodable frame from agent " + peer + ": " + e.getMessage());
            Pending waiting = e.requestId() == 0 ? null : finish(e.requestId());
            if (waiting != null) {
                waiting.promise.tryFail(e);
            }
            return;
        }
        if (message.requestId() != 0) {
            Pending waiting = finish(message.requestId());
            if (waiting == null) {
                droppedFrames.incrementAndGet(); // its request timed out already
            } else {
                waiting.promise.tryComplete(message);
            }
            return;
        }
        if (message instanceof SyncEntries entries) {
            onPushedEntries(entries);
        } else if (message instanceof VolumeChanged changed) {
            onVolumeChanged(changed);
        } else if (message instanceof ErrorReply error) {
            log.warn("Agent " + peer + " reported " + error.code() + ": " + error.message());
        } else {
            droppedFrames.incrementAndGet();
        }
    }

    /** Home context (or the caller of close): the connection ends, once. */
    private void shutDown(Throwable cause) {
        if (state == State.CLOSED) {
            return;
        }
        closeCause = cause;
        state = State.CLOSED;
        mirrors.clear(); // remote keys belong to the channel and die with it
        for (Long id : List.copyOf(pending.keySet())) {
            Pending waiting = finish(id);
            if (waiting != null) {
                waiting.promise.tryFail(unavailable(waiting.what));
            }
        }
        if (cause != null) {
            log.warn("Connection to agent " + peer + " lost: " + cause.getMessage());
        }
        closed.tryComplete();
    }
}
