package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.ucx.SigbusGuard;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.seaweedfs.rdma.protocol.ControlCodec;
import org.seaweedfs.rdma.ucx.UcxListener;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;
import org.seaweedfs.rdma.volume.ec.EcLayout;

import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import java.util.StringJoiner;

/**
 * The volume agent: serves the volumes of one SeaweedFS volume server to sidecars over UCX. Each {@code .dat} is
 * mapped read-only in segments and registered with UCX so sidecars read needle records with one-sided gets; the
 * needle maps and everything else go over the control protocol (docs/protocol.md).
 *
 * <p><b>Threading.</b> Deploy it as a WORKER verticle: its context does file I/O (scans, index reads, mapping), and
 * every piece of its state (volumes, needle maps, sessions) is confined to that one serialized context. The UCX
 * worker verticle it is given must be deployed, or being deployed: work handed to it before its worker exists waits
 * for it (or fails with its start). Its futures and handlers come back on this context.
 *
 * <p><b>Volume memory.</b> With {@code agent.volumeMemory: mapped} (the default) sidecars read the registered file
 * mappings: right with RDMA NICs and for volumes larger than RAM. Without RDMA, UCX 1.13 reads registered file memory
 * only over emulated TCP lanes that cost this agent's UCX thread CPU per get; with {@code ucx} each {@code .dat} is
 * served from a copy in UCX-allocated memory, which same-host sidecars read one-sidedly over shared memory, up to
 * {@code agent.volumeMemoryLimit} bytes (volumes beyond it are served mapped, with one warning each). The copies are
 * made on this worker context, never on an event loop.
 *
 * <p><b>Following the volume server.</b> Every {@link #POLL_INTERVAL} a pass serves the growth of each
 * {@code .dat} (the short tail segment is mapped or copied again larger, or a copied tail takes the new bytes into its
 * spare room, and new segments are added; {@code VolumeChanged GROWN} is pushed), then applies the new {@code .idx}
 * entries, but only those whose record lies inside the served segments, so a sidecar is never told of a record it
 * cannot read; a later entry waits for the next growth. Applied
 * entries are pushed as {@code SyncEntries} to sidecars that mirror the volume to its end. New volume files become
 * {@code NEW} volumes; a pair of files replaced on disk (another inode, a shorter file, or a new compaction
 * revision) is reopened under a new, strictly larger epoch ({@code COMPACTED}); a vanished volume is
 * {@code REMOVED}.
 *
 * <p><b>Why old mappings are released late.</b> A sidecar may have started a get on a segment just before the agent
 * replaced it (growth) or its whole epoch (compaction). The bytes behind an old mapping never change: the
 * {@code .dat} only grows, and a compaction renames a new file over the path while the old mapping keeps the old
 * file's pages. So a replaced mapping stays registered for {@link #RETIRE_GRACE} and serves such late gets
 * correctly. After the grace it is deregistered: on RDMA hardware a get with its remote key then fails on the
 * reader's side with a remote access error, which the reader treats as retriable (re-fetch the volume list, read
 * again); it can never return other bytes, because the key no longer names any memory. Over TCP or shared memory,
 * UCX emulates the get by copying from the raw address without checking the key, so the agent keeps the old mapping
 * itself (unregistered) for a second grace before dropping it: a very late reader still gets the old file's own
 * bytes, never a fault. A UCX copy cannot be deregistered without being freed, so it stays registered for both graces
 * and is freed after the second. Sidecars drop remote keys when they see {@code VolumeChanged}, so only a reader that
 * missed those pushes for a whole grace can get that far.
 */
public final class AgentVerticle extends VerticleBase {

    /**
     * How often the volume files are checked for growth, deletions, new volumes and compaction: changes are served
     * well within 1 s, and a pass over idle volumes costs a few file stats.
     */
    public static final Duration POLL_INTERVAL = Duration.ofMillis(250);
    /** How long a replaced mapping stays registered (and then mapped), so reads that started before can finish. */
    public static final Duration RETIRE_GRACE = Duration.ofSeconds(10);

    private static final Logger log = LoggerFactory.getLogger(AgentVerticle.class);

    private final UcxWorkerVerticle ucx;
    private final AgentSettings settings;
    /** {@link DatSegments#SEGMENT_BYTES}, and SeaweedFS's EC blocks; less only in tests (see the constructor). */
    private final long segmentBytes;
    private final long ecLargeBlock;
    private final long ecSmallBlock;
    private final AgentMetrics metrics = new AgentMetrics();
    private final String instanceId;

    // Agent-context state.
    private ControlServer server;
    private VolumeFollower follower;
    private EcFollower ecFollower;
    private RetiredMappings retired;
    private SegmentMemory memory;
    private volatile UcxListener listener;
    private long pollTimer = -1;
    private Future<Void> pass = Future.succeededFuture();
    private boolean stopping;
    private int protocolVersion = ControlCodec.PROTOCOL_VERSION;

    /** @param ucx an already deployed UCX worker verticle (any Vert.x instance) */
    public AgentVerticle(UcxWorkerVerticle ucx, AgentSettings settings) {
        this(ucx, settings, DatSegments.SEGMENT_BYTES, EcLayout.LARGE_BLOCK, EcLayout.SMALL_BLOCK);
    }

    /**
     * With smaller pieces than the product's, for what tests cannot reach with them in reasonable time: copies of
     * several segments ({@code agent.volumeMemory: ucx} copies a whole 1 GiB segment, seconds per test; mapped
     * volumes reach several segments with sparse files), EC shards of several segments and large EC rows (a shard
     * passes 1 GiB, and a row is ten 1 GiB blocks, only for a {@code .dat} of 10 GiB).
     */
    AgentVerticle(UcxWorkerVerticle ucx, AgentSettings settings, long segmentBytes, long ecLargeBlock,
                  long ecSmallBlock) {
        this.ucx = Objects.requireNonNull(ucx, "ucx");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.segmentBytes = segmentBytes;
        this.ecLargeBlock = ecLargeBlock;
        this.ecSmallBlock = ecSmallBlock;
        byte[] nonce = new byte[8];
        new SecureRandom().nextBytes(nonce);
        this.instanceId = settings.agentId() + "/" + HexFormat.of().formatHex(nonce);
    }

    /**
     * Speaks control protocol versions up to {@code version} only, as an agent of an older release would (sidecars
     * of this release then look every needle up). Call before deploying.
     */
    public AgentVerticle speakProtocolAtMost(int version) {
        if (version < ControlCodec.MIN_PROTOCOL_VERSION || version > ControlCodec.PROTOCOL_VERSION) {
            throw new IllegalArgumentException("protocol version must be in " + ControlCodec.MIN_PROTOCOL_VERSION
                    + ".." + ControlCodec.PROTOCOL_VERSION + ", got " + version);
        }
        this.protocolVersion = version;
        return this;
    }

    /** The volumes followed; agent context only. */
    VolumeFollower follower() {
        return follower;
    }

    /** The context every piece of the agent's state is confined to. */
    io.vertx.core.Context agentContext() {
        return context;
    }

    public AgentSettings settings() {
        return settings;
    }

    public AgentMetrics metrics() {
        return metrics;
    }

    /** The agent id sent in HelloOk: {@link AgentSettings#agentId()} plus a suffix that is new on every start. */
    public String instanceId() {
        return instanceId;
    }

    /** Where the control listener is bound (null before start). */
    public InetSocketAddress listenAddress() {
        UcxListener l = listener;
        return l == null ? null : l.address();
    }

    /** The bound port (the real one when port 0 was configured), or -1 before start. */
    public int port() {
        UcxListener l = listener;
        return l == null ? -1 : l.port();
    }

    @Override
    public Future<?> start() {
        if (!context.isWorkerContext()) {
            return Future.failedFuture(new IllegalStateException("AgentVerticle must be deployed as a WORKER verticle "
                    + "(DeploymentOptions.setThreadingModel(ThreadingModel.WORKER)): it does file I/O on its context"));
        }
        String noGuard = SigbusGuard.absenceWarning();
        if (noGuard != null) {
            log.warn(noGuard);
        }
        ControlCodec codec = new ControlCodec();
        memory = new SegmentMemory(ucx, settings.volumeMemory(), settings.volumeMemoryLimit(), segmentBytes,
                metrics);
        retired = new RetiredMappings(vertx, memory, RETIRE_GRACE.toMillis());
        server = new ControlServer(settings, instanceId, codec, metrics, ucx.settings().peerSettings());
        server.speakAtMost(protocolVersion);
        follower = new VolumeFollower(settings, memory, retired, metrics, server);
        ecFollower = new EcFollower(settings, ecLargeBlock, ecSmallBlock, memory, retired, follower::nextEpoch,
                server);
        server.serve(follower, ecFollower);
        long opening = System.nanoTime();
        return poll(true)
                .compose(v -> ucx.listen(settings.host(), settings.port(), server::accept))
                .onSuccess(l -> {
                    listener = l;
                    log.info(startLine(l, (System.nanoTime() - opening) / 1_000_000));
                    schedulePoll();
                })
                .recover(e -> release().transform(x -> Future.failedFuture(
                        new IllegalStateException("agent " + settings.agentId() + " could not start: " + e.getMessage(),
                                e))));
    }

    @Override
    public Future<?> stop() {
        stopping = true;
        vertx.cancelTimer(pollTimer);
        return pass.transform(x -> release()).onComplete(x -> log.info("Agent " + instanceId + " stopped"));
    }

    private void schedulePoll() {
        if (stopping) {
            return;
        }
        pollTimer = vertx.setTimer(POLL_INTERVAL.toMillis(), t -> {
            pass = poll(false);
            pass.onComplete(x -> {
                metrics.polls().increment();
                schedulePoll();
            });
        });
    }

    /** One pass over the .dat volumes, then the EC volumes (a .dat volume of an id wins over EC shards of it). */
    private Future<Void> poll(boolean startUp) {
        return follower.poll(startUp).compose(v -> ecFollower.poll(startUp, id -> follower.volume(id) != null));
    }

    /**
     * Listener, channels, then memory: no new reader can arrive while the registrations go. Those are left to the UCX
     * worker, which stops after the agent ({@link SegmentMemory#leaveToWorker}).
     */
    private Future<Void> release() {
        if (memory != null) {
            memory.leaveToWorker();
        }
        UcxListener l = listener;
        Future<Void> closed = l == null ? Future.succeededFuture() : l.close().otherwiseEmpty();
        return closed
                .compose(v -> server == null ? Future.<Void>succeededFuture() : server.closeAll())
                .compose(v -> follower == null ? Future.<Void>succeededFuture() : follower.close())
                .compose(v -> ecFollower == null ? Future.<Void>succeededFuture() : ecFollower.close())
                .compose(v -> retired == null ? Future.<Void>succeededFuture() : retired.releaseAll());
    }

    private String startLine(UcxListener l, long openMillis) {
        StringJoiner volumes = new StringJoiner(", ");
        follower.volumes().forEach(v -> volumes.add(VolumeFollower.describe(v)));
        return "Agent " + instanceId + " listening on UCX " + l.address().getHostString() + ":" + l.port()
                + " (UCX transports " + ucx.settings().tls() + ", devices " + ucx.settings().netDevices() + ")"
                + "; serving " + follower.volumes().size() + " volumes and " + ecFollower.volumes().size()
                + " EC volumes (opened in " + openMillis + " ms) from " + settings.volumeDirs()
                + (follower.volumes().isEmpty() ? "" : ": " + volumes)
                + "; volume memory " + settings.volumeMemory().configName()
                + (settings.volumeMemory() == VolumeMemory.UCX ? " (limit " + settings.volumeMemoryLimit() + " bytes, "
                        + metrics.volumeCopyBytes() + " held)" : "")
                + "; SIGBUS guard " + (SigbusGuard.active() ? "active" : "ABSENT")
                + "; " + (settings.authToken() == null ? "no token required" : "token required")
                + "; index entries " + (settings.offset5() ? "17" : "16") + " bytes; polling every "
                + POLL_INTERVAL.toMillis() + " ms";
    }
}
