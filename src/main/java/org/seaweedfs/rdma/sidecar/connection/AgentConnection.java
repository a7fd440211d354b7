package org.seaweedfs.rdma.sidecar.connection;

import org.seaweedfs.rdma.sidecar.ReadFailure;

import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.seaweedfs.rdma.protocol.ControlCodec;
import org.seaweedfs.rdma.protocol.ControlMessage;
import org.seaweedfs.rdma.protocol.ErrorCode;
import org.seaweedfs.rdma.protocol.ErrorReply;
import org.seaweedfs.rdma.protocol.Hello;
import org.seaweedfs.rdma.protocol.HelloOk;
import org.seaweedfs.rdma.protocol.Ping;
import org.seaweedfs.rdma.protocol.Pong;
import org.seaweedfs.rdma.protocol.ProtocolException;
import org.seaweedfs.rdma.protocol.ReadThrough;
import org.seaweedfs.rdma.protocol.ReadThroughData;
import org.seaweedfs.rdma.protocol.SyncEntries;
import org.seaweedfs.rdma.protocol.VolumeChanged;
import org.seaweedfs.rdma.ucx.UcxChannel;
import org.seaweedfs.rdma.ucx.UcxLibrary;
import org.seaweedfs.rdma.ucx.UcxSettings;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.sidecar.locations.LocationCache;

/**
 * One control channel to one agent, for the lifetime of one UCX endpoint: the handshake, then frames dispatched
 * to the parts that do the work: {@link RequestTable} (request/reply correlation and deadlines),
 * {@link VolumeTable} (the volume list, remote keys unpacked on this channel), {@link LookupBatcher} (misses of
 * the {@link LocationCache}, batched) and {@link IndexFollower} (the agent's index changes, dropping cached
 * locations). Connecting costs the hello and the volume list only, whatever the number of needles. It never
 * reconnects: when the channel closes (or {@link #close()} is called) the connection is {@link State#CLOSED} for
 * good, its remote keys and cached locations are dropped, pending requests fail with a retriable
 * {@link ReadFailure} UNAVAILABLE, and {@link #closeFuture()} completes. The connection manager makes a new one.
 *
 * <p>Threads: the connection lives on the Vert.x context that called {@link #connect} (its home context); all
 * of its bookkeeping runs there. Public methods may be called from any thread; every returned future completes
 * on the caller's context. {@link #volume} is a lock-free read for the read path.
 */
public final class AgentConnection {

    private static final Logger log = LoggerFactory.getLogger(AgentConnection.class);

    /** CONNECTING -> HANDSHAKING -> LISTING -> READY -> CLOSED; any state may go to CLOSED. */
    public enum State { CONNECTING, HANDSHAKING, LISTING, READY, CLOSED }

    /**
     * @param host                   agent host
     * @param port                   agent control port
     * @param clientId               this sidecar's name in the agent's logs
     * @param token                  the agent's shared secret, or null
     * @param requestTimeoutMs       how long a request waits for its reply
     * @param maxOutstandingRequests requests in flight at once; more fail at once (UNAVAILABLE, overloaded)
     */
    public record Options(String host, int port, String clientId, String token, long requestTimeoutMs,
                          int maxOutstandingRequests) {
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
                throw new IllegalArgumentException("max outstanding requests must be at least 1, got "
                        + maxOutstandingRequests);
            }
        }

        public static Options of(String host, int port, String clientId, String token) {
            return new Options(host, port, clientId, token, 5_000, 4096);
        }
    }

    private final Vertx vertx;
    private final Options options;
    /** This process's UCX settings, which the agent's must equal. */
    private final UcxSettings ucx;
    private volatile ControlCodec codec;
    private final UcxWorkerVerticle ucxWorker;
    private final Context home;
    private final UcxChannel channel;
    private final String peer;
    private final RequestTable requests;
    private final VolumeTable volumes;
    private final IndexFollower follower;
    private final Promise<Void> closed;
    private volatile State state = State.HANDSHAKING;
    private volatile Throwable closeCause;
    private volatile String agentId = "";
    private final AtomicLong droppedFrames = new AtomicLong();
    /** Frames received from the agent; written by the home context only. */
    private volatile long framesHeard;
    /** Agent and UCX versions already warned about, so a reconnecting agent is named once. */
    private static final Set<String> VERSION_WARNINGS = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private AgentConnection(Vertx vertx, Options options, Context home, UcxChannel channel, LocationCache cache,
                            UcxSettings ucx, UcxWorkerVerticle ucxWorker) {
        this.vertx = vertx;
        this.options = options;
        this.ucx = ucx;
        this.codec = new ControlCodec(); // the protocol's frame size, as the agent's
        this.ucxWorker = ucxWorker;
        this.home = home;
        this.channel = channel;
        this.peer = options.host() + ":" + options.port();
        this.closed = VertxInternals.promise(home);
        this.requests = new RequestTable(vertx, codec, channel, peer, options.requestTimeoutMs(),
                options.maxOutstandingRequests(), () -> state == State.CLOSED ? closedFailure() : null);
        LookupBatcher lookups = new LookupBatcher(vertx, home, requests, cache, codec.maxLookupsPerFrame());
        this.volumes = new VolumeTable(vertx, home, channel, requests, peer, cache, lookups,
                () -> state == State.CLOSED);
        this.follower = new IndexFollower(home, requests, peer, volumes::dropAndRelist);
        volumes.follower(follower);
    }

    /** {@link #connect(Vertx, UcxWorkerVerticle, Options, LocationCache)} with a cache of its own (default budget). */
    public static Future<AgentConnection> connect(Vertx vertx, UcxWorkerVerticle ucx, Options options) {
        return connect(vertx, ucx, options,
                new LocationCache(LocationCache.DEFAULT_MAX_BYTES, new CompositeMeterRegistry()));
    }

    /**
     * Connects, says Hello and fetches the volume list; completes (on the caller's context) once the connection is
     * {@link State#READY} (no needle map is fetched: locations are looked up on a miss and cached in {@code cache},
     * which all connections of a sidecar share). Fails with {@link AgentError} UNAUTHORIZED (not retriable) when
     * the agent refuses the token, with a retriable {@link ReadFailure} UNAVAILABLE when the agent cannot be
     * reached, and with TIMEOUT when it does not answer in time.
     */
    public static Future<AgentConnection> connect(Vertx vertx, UcxWorkerVerticle ucx, Options options,
            LocationCache cache) {
        Context caller = VertxInternals.callerContext(vertx);
        Promise<AgentConnection> result = VertxInternals.promise(caller);
        Context home = caller.isEventLoopContext() ? caller : vertx.getOrCreateContext();
        home.runOnContext(v -> ucx.connect(options.host(), options.port())
                .recover(e -> Future.failedFuture(ReadFailure.unavailable(
                        "cannot reach agent " + options.host() + ":" + options.port() + ": " + e.getMessage(), e)))
                .compose(channel -> {
                    AgentConnection connection = new AgentConnection(vertx, options, home, channel, cache,
                            ucx.settings(), ucx);
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

    /** The protocol version the handshake agreed on (the highest both sides speak). */
    public int protocolVersion() {
        return codec.version();
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

    /** A volume the agent serves, or null when it does not list it (or the connection is closed). Any thread. */
    public RemoteVolume volume(long volumeId) {
        return volumes.get(volumeId);
    }

    /** Volume ids the agent serves, as of the last list. */
    public Set<Long> volumeIds() {
        return volumes.ids();
    }

    /** Locations of this agent's needles cached now. */
    public long cachedLocations() {
        return volumes.cachedEntries();
    }

    /** Requests waiting for their reply. */
    public int outstandingRequests() {
        return requests.outstanding();
    }

    /** Frames received from the agent so far (replies, pushes, pongs), read from any thread. */
    public long framesHeard() {
        return framesHeard;
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
        return requests.request(id -> new Ping(id, System.nanoTime()), Pong.class, "Ping")
                .map(pong -> Duration.ofNanos(System.nanoTime() - pong.sentNanos()));
    }

    /** {@code length} bytes at {@code offset} of the needle's record, copied by the agent (the degraded path). */
    public Future<ReadThroughData> readThrough(FileId fid, long offset, int length) {
        return requests.request(id -> new ReadThrough(id, fid.volumeId(), fid.key(), fid.cookie(), offset, length),
                ReadThroughData.class, "ReadThrough");
    }

    /**
     * Fetches the volume list again and applies it (new segments' keys unpacked, new epochs given fresh, empty
     * locations). Completes once a list asked for after this call is applied.
     */
    public Future<Void> refreshVolumes() {
        return volumes.refresh();
    }

    /**
     * Whether the agent announced a change of the volume (replaced, compacted, removed) that no volume list has told of
     * yet: a read that finds the volume missing then is in that window, not told that the agent does not serve it.
     */
    public boolean isRelisting(long volumeId) {
        return volumes.relisting(volumeId);
    }

    /** The control channel (its remote keys back the volumes), for diagnostics and tests. */
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
        return helloFrom(ControlCodec.PROTOCOL_VERSION)
                .recover(e -> Future.failedFuture(refusal(e)))
                .compose(ok -> {
                    String refused = checkUcx(ok);
                    if (refused != null) {
                        return Future.failedFuture(new ReadFailure(ReadFailure.Kind.UNAVAILABLE, refused));
                    }
                    agentId = ok.agentId();
                    if (ok.protocolVersion() < ControlCodec.MIN_PROTOCOL_VERSION
                            || ok.protocolVersion() > ControlCodec.PROTOCOL_VERSION) {
                        return Future.failedFuture(new ReadFailure(ReadFailure.Kind.UNAVAILABLE, "agent " + peer
                                + " answered in protocol version " + ok.protocolVersion()));
                    }
                    codec = codec.withVersion(ok.protocolVersion());
                    requests.codec(codec);
                    if (ok.protocolVersion() >= 4) { // misses read the agent's index one-sidedly
                        volumes.indexes((volumeId, epoch) -> new RemoteIndex(volumeId, epoch, home, requests, channel,
                                ucxWorker));
                    }
                    state = State.LISTING;
                    return volumes.fetch();
                })
                .map(v -> {
                    if (state == State.LISTING) {
                        state = State.READY;
                        log.info("Connected to agent " + agentId + " at " + peer + ": " + volumes.ids().size()
                                + " volumes");
                    }
                    return this;
                });
    }

    /**
     * Says Hello in {@code version}: the newest first, then the oldest spoken when the agent refuses it (an agent of
     * an older release), whose needles are then all looked up.
     */
    /** Hello in {@code version}; refused as unsupported (an older agent), again a version lower, down to the oldest. */
    private Future<HelloOk> helloFrom(int version) {
        return hello(version).recover(e -> version > ControlCodec.MIN_PROTOCOL_VERSION && e instanceof AgentError error
                && error.code() == ErrorCode.UNSUPPORTED_VERSION ? helloFrom(version - 1) : Future.failedFuture(e));
    }

    private Future<HelloOk> hello(int version) {
        return requests.request(id -> new Hello(id, version, options.clientId(), options.token()), HelloOk.class,
                "Hello");
    }

    /** A refused Hello, told in words an operator can act on. */
    private Throwable refusal(Throwable e) {
        if (e instanceof AgentError error && error.code() == ErrorCode.UNAUTHORIZED) {
            return new AgentError(ErrorCode.UNAUTHORIZED, "agent " + peer + " refused this sidecar's token: "
                    + error.getMessage(), false);
        }
        if (e instanceof AgentError error && error.code() == ErrorCode.UNSUPPORTED_VERSION) {
            return new AgentError(ErrorCode.UNSUPPORTED_VERSION, error.getMessage() + " (this sidecar speaks protocol "
                    + ControlCodec.MIN_PROTOCOL_VERSION + " to " + ControlCodec.PROTOCOL_VERSION
                    + ": run the same release on agents and sidecars)", false);
        }
        return e;
    }

    /**
     * Null when the agent's UCX settings equal this process's, else why this sidecar will not talk to it: a peer whose
     * segments are larger than this side's makes UCX abort the receiving process, so nothing beyond the handshake may
     * cross. A different UCX version is only warned about, once per agent and pair of versions.
     */
    private String checkUcx(HelloOk ok) {
        String ours = UcxLibrary.version();
        String theirs = ok.ucxVersion();
        if (!ours.isEmpty() && !theirs.isEmpty() && !ours.equals(theirs)
                && VERSION_WARNINGS.add(peer + " " + theirs + " " + ours)) {
            log.warn("Agent " + peer + " runs UCX " + theirs + ", this sidecar UCX " + ours + ": UCX keeps its wire "
                    + "format only between equal versions, so run the same UCX on both hosts");
        }
        java.util.List<String> differences = ucx.peerSettingDifferences(ok.ucxSettings());
        if (differences.isEmpty()) {
            return null;
        }
        return "refused agent " + peer + " (" + ok.agentId() + "): its UCX settings differ from this sidecar's ("
                + String.join("; ", differences) + "), and UCX aborts a process that receives a fragment larger than "
                + "its own segment, so nothing is sent to it. Give both the same settings: the library's defaults need "
                + "none (UcxSettings)";
    }

    // ---- frames (home context) ----

    private void onFrame(Buffer frame) {
        framesHeard++; // one writer, the home context: no increment is lost
        ControlMessage message;
        try {
            message = codec.decode(VertxInternals.nioView(frame));
        } catch (ProtocolException e) {
            droppedFrames.incrementAndGet();
            log.warn("Undecodable frame from agent " + peer + ": " + e.getMessage());
            requests.fail(e.requestId(), e);
            return;
        }
        if (message.requestId() != 0) {
            if (!requests.complete(message)) {
                droppedFrames.incrementAndGet(); // its request timed out already
            }
            return;
        }
        if (message instanceof SyncEntries entries) {
            RemoteVolume volume = volumes.get(entries.volumeId());
            follower.pushed(volume == null ? null : volume.locations(), entries);
        } else if (message instanceof VolumeChanged changed && changed.reason() == VolumeChanged.Reason.INDEX) {
            volumes.dropIndex(changed.volumeId());
        } else if (message instanceof VolumeChanged changed) {
            if (changed.reason() == VolumeChanged.Reason.COMPACTED || changed.reason()
                    == VolumeChanged.Reason.REMOVED) {
                volumes.dropAndRelist(changed.volumeId()); // old offsets are invalid from now on
            } else {
                volumes.refresh();
            }
        } else if (message instanceof ErrorReply error) {
            log.warn("Agent " + peer + " reported " + error.code() + ": " + error.message());
        } else {
            droppedFrames.incrementAndGet();
        }
    }

    private ReadFailure closedFailure() {
        return ReadFailure.unavailable("connection to agent " + peer + " is closed", closeCause);
    }

    /** Home context (or the caller of close): the connection ends, once. */
    private void shutDown(Throwable cause) {
        if (state == State.CLOSED) {
            return;
        }
        closeCause = cause;
        state = State.CLOSED;
        volumes.clear(); // remote keys belong to the channel and die with it
        requests.failAll();
        if (cause != null) {
            log.warn("Connection to agent " + peer + " lost: " + cause.getMessage());
        }
        closed.tryComplete();
    }
}
