package org.seaweedfs.rdma.agent;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.seaweedfs.rdma.protocol.ControlCodec;
import org.seaweedfs.rdma.protocol.ControlMessage;
import org.seaweedfs.rdma.protocol.ErrorCode;
import org.seaweedfs.rdma.protocol.MessageType;
import org.seaweedfs.rdma.protocol.ErrorReply;
import org.seaweedfs.rdma.protocol.Hello;
import org.seaweedfs.rdma.protocol.HelloOk;
import org.seaweedfs.rdma.protocol.IndexHandle;
import org.seaweedfs.rdma.protocol.IndexRequest;
import org.seaweedfs.rdma.protocol.Lookup;
import org.seaweedfs.rdma.protocol.LookupBatch;
import org.seaweedfs.rdma.protocol.LookupBatchResult;
import org.seaweedfs.rdma.protocol.Ping;
import org.seaweedfs.rdma.protocol.Pong;
import org.seaweedfs.rdma.protocol.ProtocolException;
import org.seaweedfs.rdma.protocol.ReadThrough;
import org.seaweedfs.rdma.protocol.ReadThroughData;
import org.seaweedfs.rdma.protocol.SyncEntries;
import org.seaweedfs.rdma.protocol.SyncRequest;
import org.seaweedfs.rdma.protocol.VolumeChanged;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.protocol.VolumeList;
import org.seaweedfs.rdma.protocol.VolumeListRequest;
import org.seaweedfs.rdma.ucx.UcxChannel;
import org.seaweedfs.rdma.ucx.UcxLibrary;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The agent's side of the control protocol (docs/protocol.md): answers each sidecar's requests on its channel and
 * pushes volume changes and index increments to the sidecars that handshook (and, for increments, mirror the volume
 * to its end). Exactly one reply per request; a frame that does not decode is answered with its error and counted,
 * and the channel stays up. Confined to the agent's context.
 */
final class ControlServer implements VolumeFollower.Events, EcFollower.Events {

    private static final Logger log = LoggerFactory.getLogger(ControlServer.class);

    /**
     * Large replies (volume lists, sync frames, read-through data) one channel may have queued for sending at once:
     * with frames of at most 4 MiB ({@link ControlCodec#DEFAULT_MAX_FRAME_BYTES}) a sidecar makes the agent buffer at
     * most 128 MiB, and 32 is well above what one sidecar's read path keeps in flight. Further such requests are
     * answered OVERLOADED (retriable) at once.
     */
    static final int MAX_REPLIES_IN_FLIGHT = 32;

    private final AgentSettings settings;
    private final String agentId;
    private final ControlCodec codec;
    private final AgentMetrics metrics;
    private VolumeFollower follower;
    private EcFollower ecVolumes;
    private final Set<ControlSession> sessions = new LinkedHashSet<>();
    private final byte[] token;
    /** The UCX settings a sidecar must share with this agent's worker (sent in HelloOk). */
    private final Map<String, Long> ucxSettings;
    /** The newest protocol version spoken (older agents are tested by speaking less). */
    private int protocolVersion = ControlCodec.PROTOCOL_VERSION;

    ControlServer(AgentSettings settings, String agentId, ControlCodec codec, AgentMetrics metrics,
                  Map<String, Long> ucxSettings) {
        this.settings = settings;
        this.agentId = agentId;
        this.codec = codec;
        this.metrics = metrics;
        this.ucxSettings = Collections.unmodifiableMap(new TreeMap<>(ucxSettings));
        this.token = settings.authToken() == null ? null : settings.authToken().getBytes(StandardCharsets.UTF_8);
    }

    /** Speaks protocol versions up to {@code version} only. Before the first channel. */
    void speakAtMost(int version) {
        this.protocolVersion = version;
    }

    void serve(VolumeFollower volumes, EcFollower ec) {
        follower = volumes;
        ecVolumes = ec;
    }

    int sessions() {
        return sessions.size();
    }

    /** For /status: who is connected, read from any thread. */
    private void publishSessions() {
        metrics.publishSidecars(sessions.stream().map(ControlSession::toString).toList());
    }

    /** A channel accepted by the listener: its frames are handled here from now on. */
    void accept(UcxChannel channel) {
        ControlSession session = new ControlSession(channel, codec);
        sessions.add(session);
        publishSessions();
        channel.closeHandler(cause -> {
            sessions.remove(session);
            publishSessions();
            log.debug("Control channel closed: " + session + (cause == null ? "" : ": " + cause.getMessage()));
        });
        channel.frameHandler(frame -> onFrame(session, frame));
    }

    /** Closes every channel (agent stopping). */
    Future<Void> closeAll() {
        List<Future<Void>> closed = new ArrayList<>();
        for (ControlSession session : sessions) {
            closed.add(session.channel().close());
        }
        sessions.clear();
        publishSessions();
        return Future.join(closed).<Void>mapEmpty().otherwiseEmpty();
    }

    void onFrame(ControlSession session, Buffer frame) {
        metrics.framesReceived().increment();
        ControlMessage request;
        try {
            request = session.codec().decode(frame.getBytes());
        } catch (ProtocolException e) {
            metrics.badFrames().increment();
            log.debug("Bad frame from " + session + ": " + e.getMessage());
            send(session, e.toReply());
            return;
        }
        boolean large = request instanceof SyncRequest || request instanceof ReadThrough
                || request instanceof VolumeListRequest;
        if (large && session.repliesInFlight() >= MAX_REPLIES_IN_FLIGHT) {
            metrics.overloaded().increment();
            send(session, ErrorReply.of(request.requestId(), ErrorCode.OVERLOADED, session.repliesInFlight()
                    + " large replies are still being sent on this channel: retry later"));
            return;
        }
        try {
            ControlMessage reply = handle(session, request);
            if (reply != null && large) {
                session.replyQueued();
                send(session, reply).onComplete(ar -> session.replySent());
            } else if (reply != null) {
                send(session, reply);
            }
        } catch (ProtocolException e) {
            send(session, e.toReply());
        } catch (IOException | RuntimeException e) {
            log.warn("Failed to serve " + request.type() + " for " + session + ": " + e, e);
            send(session, ErrorReply.of(request.requestId(), ErrorCode.INTERNAL, e.toString()));
        }
    }

    private ControlMessage handle(ControlSession session, ControlMessage request) throws IOException {
        long id = request.requestId();
        if (request instanceof Hello hello) {
            return hello(session, hello);
        }
        if (!session.handshaken()) {
            throw new ProtocolException(ErrorCode.HANDSHAKE_REQUIRED, id, request.type()
                    + " before Hello: send Hello first");
        }
        if (request instanceof Ping ping) {
            return new Pong(id, ping.sentNanos(), System.currentTimeMillis());
        }
        if (request instanceof VolumeListRequest) {
            List<VolumeInfo> volumes = new ArrayList<>();
            follower.volumes().forEach(v -> volumes.add(v.describe()));
            ecVolumes.volumes().forEach(v -> volumes.add(v.describe()));
            return new VolumeList(id, volumes);
        }
        if (request instanceof Lookup lookup) {
            metrics.lookups().increment();
            EcServedVolume ec = ecVolume(lookup.volumeId());
            return ec != null ? ec.lookup(id, lookup.key())
                    : volume(id, lookup.volumeId()).lookup(id, lookup.key(), lookup.cookie());
        }
        if (request instanceof LookupBatch batch) {
            return lookupBatch(batch);
        }
        if (request instanceof SyncRequest sync) {
            return sync(session, sync);
        }
        if (request instanceof IndexRequest wanted) {
            metrics.indexRequests().increment();
            IndexHandle handle = ecVolume(wanted.volumeId()) != null ? null
                    : volume(id, wanted.volumeId()).indexHandle(id);
            if (handle == null) {
                throw new ProtocolException(ErrorCode.NOT_FOUND, id, "volume " + wanted.volumeId()
                        + " exposes no needle index now: look its needles up");
            }
            return handle;
        }
        if (request instanceof ReadThrough read) {
            metrics.readThroughs().increment();
            if (ecVolume(read.volumeId()) != null) {
                throw new ProtocolException(ErrorCode.BAD_REQUEST, id, "volume " + read.volumeId()
                        + " is erasure-coded: read its shards (read-through serves .dat volumes only)");
            }
            ReadThroughData data = volume(id, read.volumeId()).readThrough(read);
            metrics.readThroughBytes().add(data.bytes().length);
            return data;
        }
        throw new ProtocolException(ErrorCode.BAD_FRAME, id, request.type() + " is not a request a sidecar may send");
    }

    private ControlMessage hello(ControlSession session, Hello hello) {
        metrics.hellos().increment();
        long id = hello.requestId();
        int speaks = protocolVersion;
        if (hello.protocolVersion() < ControlCodec.MIN_PROTOCOL_VERSION || hello.protocolVersion() > speaks) {
            throw new ProtocolException(ErrorCode.UNSUPPORTED_VERSION, id, "Hello.protocolVersion: "
                    + hello.protocolVersion() + " is not spoken here; this agent speaks "
                    + (speaks == ControlCodec.MIN_PROTOCOL_VERSION ? "" : ControlCodec.MIN_PROTOCOL_VERSION + " to ")
                    + speaks + " (run the same release on agents and sidecars)");
        }
        if (token != null && (hello.token() == null
                || !MessageDigest.isEqual(token, hello.token().getBytes(StandardCharsets.UTF_8)))) {
            metrics.unauthorized().increment();
            log.warn("Refused " + session.channel() + " (client '" + hello.clientId() + "'): "
                    + (hello.token() == null ? "no token" : "wrong token"));
            UcxChannel channel = session.channel();
            sessions.remove(session);
            publishSessions();
            send(session, ErrorReply.of(id, ErrorCode.UNAUTHORIZED, "Hello.token: missing or wrong"))
                    .onComplete(sent -> channel.close());
            return null;
        }
        boolean first = !session.handshaken();
        session.handshakeDone(hello.clientId(), codec.withVersion(hello.protocolVersion()));
        publishSessions();
        if (first) {
            log.info("Sidecar '" + hello.clientId() + "' connected from " + session.channel().peerAddress());
        }
        return new HelloOk(id, hello.protocolVersion(), agentId, System.currentTimeMillis(),
                UcxLibrary.version(), ucxSettings);
    }

    private ControlMessage sync(ControlSession session, SyncRequest request) throws IOException {
        metrics.syncs().increment();
        long id = request.requestId();
        EcServedVolume ec = ecVolume(request.volumeId());
        SyncedIndex volume = ec != null ? ec : volume(id, request.volumeId());
        if (request.epoch() != 0 && request.epoch() != volume.epoch()) {
            throw new ProtocolException(ErrorCode.STALE_EPOCH, id, "volume " + volume.volumeId() + " is at epoch "
                    + Long.toUnsignedString(volume.epoch()) + ", not " + Long.toUnsignedString(request.epoch())
                    + ": re-fetch the volume list and sync from 0");
        }
        long from = request.fromPosition();
        if (from > volume.appliedPosition() || from % volume.idxEntryBytes() != 0) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, id, "SyncRequest.fromPosition: " + from
                    + " is not an entry boundary (" + volume.idxEntryBytes() + " bytes) within the applied index of "
                    + volume.appliedPosition() + " bytes");
        }
        SyncEntries entries = volume.syncFrame(id, from, codec.maxSyncEntriesPerFrame());
        if (entries.more()) {
            session.forget(volume.volumeId());
        } else {
            session.mirrored(volume.volumeId(), volume.epoch(), entries.toPosition());
        }
        return entries;
    }

    /**
     * Each id answered from its volume's needle map (an EC volume's from its .ecx minus .ecj), in order; an unknown
     * volume is a result, not an error.
     */
    private ControlMessage lookupBatch(LookupBatch batch) throws IOException {
        int n = batch.count();
        metrics.lookups().add(n);
        metrics.lookupBatches().increment();
        byte[] results = new byte[n * LookupBatchResult.RESULT_BYTES];
        for (int i = 0; i < n; i++) {
            ServedVolume volume = follower.volume(batch.volumeId(i));
            EcServedVolume ec = volume == null ? ecVolume(batch.volumeId(i)) : null;
            if (volume != null) {
                volume.lookupInto(results, i, batch.requestId(), batch.key(i), batch.cookie(i));
            } else if (ec != null) {
                ec.lookupInto(results, i, batch.key(i));
            } else {
                LookupBatchResult.put(results, i, LookupBatchResult.UNKNOWN_VOLUME, 0, 0, 0);
            }
        }
        return new LookupBatchResult(batch.requestId(), results);
    }

    /** The EC volume of that id, when no .dat volume of it is served. */
    private EcServedVolume ecVolume(long volumeId) {
        return ecVolumes == null || follower.volume(volumeId) != null ? null : ecVolumes.volume(volumeId);
    }

    private ServedVolume volume(long requestId, long volumeId) {
        ServedVolume volume = follower.volume(volumeId);
        if (volume == null) {
            throw new ProtocolException(ErrorCode.UNKNOWN_VOLUME, requestId, "volume " + volumeId
                    + " is not served here");
        }
        return volume;
    }

    // ---- pushes (VolumeFollower.Events) ----

    @Override
    public boolean wantsEntries(ServedVolume volume) {
        for (ControlSession session : sessions) {
            ControlSession.Mirror mirror = session.mirror(volume.volumeId());
            if (mirror != null && mirror.epoch() == volume.epoch()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void added(ServedVolume volume) {
        pushToAll(new VolumeChanged(volume.volumeId(), volume.epoch(), VolumeChanged.Reason.NEW));
    }

    @Override
    public void grown(ServedVolume volume) {
        pushToAll(new VolumeChanged(volume.volumeId(), volume.epoch(), VolumeChanged.Reason.GROWN));
    }

    @Override
    public void applied(ServedVolume volume, long from, byte[] packed) {
        pushEntries(volume, from, packed);
    }

    /** Pushes index entries [from, volume.appliedPosition()) to the sessions mirroring the volume to {@code from}. */
    private void pushEntries(SyncedIndex volume, long from, byte[] packed) {
        for (ControlSession session : sessions) {
            ControlSession.Mirror mirror = session.mirror(volume.volumeId());
            if (mirror == null || mirror.epoch() != volume.epoch() || mirror.position() >= volume.appliedPosition()) {
                continue;
            }
            try {
                if (mirror.position() == from && packed != null) {
                    for (SyncEntries push : SyncEntries.splitPushes(volume.volumeId(), volume.epoch(), from,
                            volume.idxEntryBytes(), packed, codec.maxSyncEntriesPerFrame())) {
                        push(session, push);
                    }
                } else {
                    SyncEntries push;
                    long at = mirror.position();
                    do {
                        push = volume.syncFrame(0, at, codec.maxSyncEntriesPerFrame());
                        push(session, push);
                        at = push.toPosition();
                    } while (push.more());
                }
                session.mirrored(volume.volumeId(), volume.epoch(), volume.appliedPosition());
            } catch (IOException | RuntimeException e) {
                log.warn("Could not push the index growth of " + volume + " to " + session + ": " + e);
                session.forget(volume.volumeId()); // it re-syncs when it sees the gap
            }
        }
    }

    @Override
    public void indexReplaced(ServedVolume volume) {
        VolumeChanged push = new VolumeChanged(volume.volumeId(), volume.epoch(), VolumeChanged.Reason.INDEX);
        for (ControlSession session : sessions) {
            if (session.handshaken() && session.codec().version() >= MessageType.INDEX_REQUEST.sinceVersion()) {
                push(session, push);
            }
        }
    }

    @Override
    public void replaced(ServedVolume old, ServedVolume now) {
        sessions.forEach(s -> s.forget(old.volumeId()));
        pushToAll(new VolumeChanged(now.volumeId(), now.epoch(), VolumeChanged.Reason.COMPACTED));
    }

    @Override
    public void removed(ServedVolume volume) {
        sessions.forEach(s -> s.forget(volume.volumeId()));
        pushToAll(new VolumeChanged(volume.volumeId(), volume.epoch(), VolumeChanged.Reason.REMOVED));
    }

    // ---- EC pushes (EcFollower.Events) ----

    @Override
    public void ecAdded(EcServedVolume volume) {
        pushToAll(new VolumeChanged(volume.volumeId(), volume.epoch(), VolumeChanged.Reason.NEW));
    }

    @Override
    public void ecShardsChanged(EcServedVolume volume) {
        pushToAll(new VolumeChanged(volume.volumeId(), volume.epoch(), VolumeChanged.Reason.GROWN));
    }

    @Override
    public void ecDeleted(EcServedVolume volume, long from) {
        pushEntries(volume, from, null);
    }

    @Override
    public void ecReplaced(EcServedVolume old, EcServedVolume now) {
        sessions.forEach(s -> s.forget(old.volumeId()));
        pushToAll(new VolumeChanged(now.volumeId(), now.epoch(), VolumeChanged.Reason.COMPACTED));
    }

    @Override
    public void ecRemoved(EcServedVolume volume) {
        sessions.forEach(s -> s.forget(volume.volumeId()));
        pushToAll(new VolumeChanged(volume.volumeId(), volume.epoch(), VolumeChanged.Reason.REMOVED));
    }

    private void pushToAll(ControlMessage push) {
        for (ControlSession session : sessions) {
            if (session.handshaken()) {
                push(session, push);
            }
        }
    }

    private void push(ControlSession session, ControlMessage push) {
        metrics.pushes().increment();
        send(session, push);
    }

    private Future<Void> send(ControlSession session, ControlMessage message) {
        byte[] frame;
        ControlCodec framing = session.codec();
        try {
            frame = framing.encode(message);
        } catch (ProtocolException e) {
            // Only a reply can be too large here (a volume list of too many volumes); pushes are split to fit.
            log.warn("Cannot send " + message.type() + " to " + session + ": " + e.getMessage());
            message = ErrorReply.of(message.requestId(), e.code(), e.getMessage());
            frame = framing.encode(message);
        }
        if (message instanceof ErrorReply) {
            metrics.errorsSent().increment();
        }
        metrics.framesSent().increment();
        ControlMessage sent = message;
        return session.channel().send(Buffer.buffer(frame)).onFailure(e ->
                log.debug("Sending " + sent.type() + " to " + session + " failed: " + e.getMessage()));
    }
}
