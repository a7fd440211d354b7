package org.seaweedfs.rdma.sidecar.ec;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.seaweedfs.rdma.config.EcRebuild;
import org.seaweedfs.rdma.protocol.EcInfo;
import org.seaweedfs.rdma.protocol.EcShard;
import org.seaweedfs.rdma.protocol.Segment;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.connection.RemoteVolume;
import org.seaweedfs.rdma.sidecar.memory.PooledBuffer;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.ucx.UcxRemoteKey;
import org.seaweedfs.rdma.volume.ec.EcInterval;
import org.seaweedfs.rdma.volume.ec.EcLayout;
import org.seaweedfs.rdma.volume.ec.ReedSolomon;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads bytes of an erasure-coded volume's original {@code .dat} with one-sided gets from its shards: the range is
 * cut into shard intervals with SeaweedFS's layout ({@link EcLayout#locate}), and each interval is read from an
 * agent that lists that shard (the one that located the needle first, then any other connected agent listing the
 * same EC layout). An interval whose shard no agent lists is, with {@code sidecar.ecRebuild: rdma}, rebuilt from
 * {@code dataShards} other shards at the same shard offsets (Reed-Solomon, as SeaweedFS encodes), or with
 * {@code fallback} fails retriably so the resilient path reads over HTTP ({@link ReadFailure#volumeTrouble}: the
 * volume's trouble, never held against the agent's connection). The caller verifies the assembled
 * record (key, cookie, CRC) exactly as for a normal needle, so wrong bytes are never served.
 *
 * <p>An agent that is late ({@link LateAgents}: gets out and none answered within the p99 of its recent shard gets, as
 * a stopped or hung agent, or one a read went around and that has not answered since) is not read from while the
 * other agents list enough shards to rebuild its shards: its intervals are rebuilt instead, so a read does not queue
 * behind it. A read already waiting on an agent learns from {@link #rebuildAround} which agents it may be waiting on
 * in vain, and a second read started after {@link #goAround} rebuilds their shards from the others'.
 *
 * <p>Thread-safe; futures complete on the caller's context (the gets do), and only once every get it started has
 * finished (the caller may then reuse the buffer). The Reed-Solomon decode of a rebuilt interval (at most one
 * pool buffer of each of dataShards shards) runs on a worker thread, never on the caller's event loop.
 */
public final class EcShardReader {

    private final EcShardHolders holders;
    private final RegisteredBufferPool pool;
    private final EcRebuild rebuild;
    private final Map<Long, ReedSolomon> codecs = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLongArray rebuilt =
            new java.util.concurrent.atomic.AtomicLongArray(EcLayout.MAX_SHARDS);
    private final LateAgents late;

    /** @param readTimeout a read's deadline ({@code sidecar.readTimeout}): it bounds how late an agent may be */
    public EcShardReader(EcShardHolders holders, RegisteredBufferPool pool, EcRebuild rebuild, Duration readTimeout) {
        this.holders = Objects.requireNonNull(holders, "holders");
        this.pool = Objects.requireNonNull(pool, "pool");
        this.rebuild = Objects.requireNonNull(rebuild, "rebuild");
        this.late = new LateAgents(readTimeout.toNanos());
    }

    /**
     * Gets {@code .dat} bytes {@code [datOffset, datOffset + length)} of the EC volume {@code primary} describes into
     * {@code buffer} from its first byte.
     */
    public Future<Void> getInto(RemoteVolume primary, PooledBuffer buffer, long datOffset, int length) {
        return getInto(primary, buffer, datOffset, length, Set.of());
    }

    /**
     * The order in which to distrust shards when {@code .dat} bytes {@code [datOffset, datOffset + length)} failed
     * their checksum: the shards holding them first, then every other shard (a rebuild's inputs).
     */
    public static List<Integer> distrustOrder(EcInfo ec, long datOffset, long length) {
        EcLayout layout = layoutOf(ec);
        List<Integer> order = new ArrayList<>();
        for (EcInterval interval : layout.locate(layout.shardDatSize(ec.datFileSize(), ec.shardSize()), datOffset,
                length)) {
            if (!order.contains(interval.shardId())) {
                order.add(interval.shardId());
            }
        }
        for (int id = 0; id < ec.totalShards(); id++) {
            if (!order.contains(id)) {
                order.add(id);
            }
        }
        return order;
    }

    private static EcLayout layoutOf(EcInfo ec) {
        return new EcLayout(ec.dataShards(), ec.parityShards(), ec.largeBlockSize(), ec.smallBlockSize());
    }

    /**
     * Like {@link #getInto(RemoteVolume, PooledBuffer, long, int)}, never reading the shards in {@code distrusted}
     * (their intervals are rebuilt from others, and they are no rebuild's input): a record that failed its checksum
     * is read again from another set of shards.
     */
    public Future<Void> getInto(RemoteVolume primary, PooledBuffer buffer, long datOffset, int length,
                                Set<Integer> distrusted) {
        EcInfo ec = primary.info().ec();
        if (ec == null) {
            return Future.failedFuture(new IllegalArgumentException(primary.where() + " is not erasure-coded"));
        }
        if (length > buffer.capacity()) {
            return Future.failedFuture(new IllegalArgumentException(length + " bytes do not fit a "
                    + buffer.capacity() + "-byte buffer"));
        }
        EcLayout layout = layoutOf(ec);
        long shardDatSize = layout.shardDatSize(ec.datFileSize(), ec.shardSize());
        List<RemoteVolume> all = sources(primary);
        List<RemoteVolume> onTime = avoidingLate(all, ec, distrusted, System.nanoTime());
        Sources from = new Sources(onTime, distrusted, onTime.size() < all.size());
        List<EcInterval> intervals = layout.locate(shardDatSize, datOffset, length);
        for (EcInterval interval : intervals) {
            if (interval.shardOffset() + interval.length() > ec.shardSize()) {
                return Future.failedFuture(ReadFailure.corrupt(primary.where() + ": .dat bytes " + datOffset + ".."
                        + (datOffset + length) + " fall past the " + ec.shardSize() + "-byte shards"));
            }
        }
        List<Future<Void>> gets = new ArrayList<>();
        // Rebuilds run one after another (each holds dataShards pool buffers), alongside the direct gets.
        Future<Void> rebuilds = Future.succeededFuture();
        long at = 0;
        for (EcInterval interval : intervals) {
            Future<Void> get = getShard(from, interval.shardId(), interval.shardOffset(), interval.length(),
                    buffer.address() + at);
            if (get != null) {
                gets.add(get);
            } else {
                int targetAt = (int) at;
                rebuilds = rebuilds.compose(v -> rebuild(primary, from, ec, interval, buffer, targetAt));
            }
            at += interval.length();
        }
        gets.add(rebuilds);
        return Future.join(gets).mapEmpty();
    }

    /** The primary volume first, then every other connection's view of it with the same EC layout. */
    private List<RemoteVolume> sources(RemoteVolume primary) {
        List<RemoteVolume> sources = new ArrayList<>();
        sources.add(primary);
        EcInfo ec = primary.info().ec();
        for (RemoteVolume other : holders.volumesOf(primary.volumeId())) {
            EcInfo o = other.info().ec();
            if (other != primary && o != null && o.dataShards() == ec.dataShards()
                    && o.parityShards() == ec.parityShards() && o.datFileSize() == ec.datFileSize()
                    && o.shardSize() == ec.shardSize() && o.largeBlockSize() == ec.largeBlockSize()
                    && o.smallBlockSize() == ec.smallBlockSize() && other.version() == primary.version()) {
                sources.add(other);
            }
        }
        return sources;
    }

    /**
     * {@code sources} without those of the late agents the others can rebuild around ({@link LateAgents#toGoAround}:
     * the longest stalled first); all of them when no agent is late (a read that cannot go around a late agent
     * waits for it).
     */
    private List<RemoteVolume> avoidingLate(List<RemoteVolume> sources, EcInfo ec, Set<Integer> distrusted,
                                            long now) {
        if (rebuild == EcRebuild.FALLBACK) {
            return sources;
        }
        List<String> agents = new ArrayList<>(sources.size());
        sources.forEach(source -> agents.add(source.agent()));
        Set<String> around = late.toGoAround(agents, now, set -> rebuildsWithout(sources, ec, distrusted, set));
        return around.isEmpty() ? sources : without(sources, around);
    }

    private static List<RemoteVolume> without(List<RemoteVolume> sources, Set<String> agents) {
        List<RemoteVolume> others = new ArrayList<>(sources.size());
        for (RemoteVolume source : sources) {
            if (!agents.contains(source.agent())) {
                others.add(source);
            }
        }
        return others;
    }

    /**
     * The agents a rebuild hedge of a read of the EC volume {@code primary} describes should go around next, null when
     * there are none. Candidates are the agents the read may be waiting on in vain: those of its holders (the agents
     * listing it now, and {@code formerHolders}: agents that listed it and went down, whose gets may still be out)
     * with gets out of which none answered for longer than {@code stallNanos}. As many of them as the other agents can
     * rebuild around together, the longest stalled first; but never a set one of {@code earlier} (the agents each
     * earlier rebuild of the read went around) holds whole, which would wait on what that one waits on: then the
     * next set, from an agent that stalled later. So a read whose first rebuild went around an agent merely slow at
     * that moment still goes around the one it waits on once that one is found stalled, even when the two together
     * are more than the others can rebuild around.
     */
    public Set<String> rebuildAround(RemoteVolume primary, Collection<String> formerHolders, long stallNanos,
                                     List<Set<String>> earlier) {
        EcInfo ec = primary.info().ec();
        if (ec == null || rebuild == EcRebuild.FALLBACK) {
            return null;
        }
        List<RemoteVolume> sources = sources(primary);
        long now = System.nanoTime();
        Set<String> agents = new LinkedHashSet<>();
        sources.forEach(source -> agents.add(source.agent()));
        agents.addAll(formerHolders);
        List<LateAgents.Stall> stalls = late.longestStalledFirst(agents, gets -> gets.stalled(now, stallNanos));
        for (int first = 0; first < stalls.size(); first++) {
            Set<String> around = LateAgents.goAround(stalls, first, set -> rebuildsWithout(sources, ec, Set.of(), set));
            if (!around.isEmpty() && earlier.stream().noneMatch(e -> e.containsAll(around))) {
                return around;
            }
        }
        return null;
    }

    /**
     * Whether {@code sources} but the views of {@code around} list the {@code dataShards} shards a rebuild needs,
     * none of them {@code distrusted}.
     */
    private static boolean rebuildsWithout(List<RemoteVolume> sources, EcInfo ec, Set<Integer> distrusted,
                                           Set<String> around) {
        return shardsListed(new Sources(without(sources, around), distrusted, true), ec) >= ec.dataShards();
    }

    /**
     * A read goes around {@code agents}: each is late (its shards rebuilt by the reads that start meanwhile) until it
     * answers a get, whatever its own delay.
     */
    public void goAround(Set<String> agents) {
        for (String agent : agents) {
            late.of(agent).goneAround();
        }
    }

    /**
     * Claims a hedge around {@code agent} (late or down) free of the hedge budget: as many as it has gets out, until it
     * answers one. False when they are claimed: a read that is slow while going around it takes the budget.
     */
    public boolean claimFreeHedgeAround(String agent) {
        LateAgents.Gets gets = late.find(agent);
        return gets != null && gets.claimFreeHedge();
    }

    /**
     * The shortest time after which an agent holding shards of {@code primary}'s volume, or any agent with gets out
     * (one that went down may still hold a read's gets), may be found late.
     */
    public long lateAfterNanos(RemoteVolume primary) {
        long shortest = Long.MAX_VALUE;
        for (RemoteVolume source : sources(primary)) {
            shortest = Math.min(shortest, late.of(source.agent()).delayNanos());
        }
        for (LateAgents.Gets gets : late.all()) {
            if (gets.busy()) {
                shortest = Math.min(shortest, gets.delayNanos());
            }
        }
        return shortest;
    }

    /**
     * Times another request to the agent {@code volume} is read from (a lookup of one of its needles), as its shard
     * gets are timed: an agent whose control channel stopped answering is late too.
     */
    public void timed(RemoteVolume volume, Future<?> request) {
        LateAgents.Gets timed = late.of(volume.agent());
        long start = timed.started();
        request.onComplete(ar -> timed.landed(start, ar.succeeded()));
    }

    /** Whether {@code agent} is late with its shard gets now. */
    public boolean late(String agent) {
        return late.late(agent, System.nanoTime());
    }

    private static int shardsListed(Sources sources, EcInfo ec) {
        int listed = 0;
        for (int id = 0; id < ec.totalShards(); id++) {
            if (listed(sources, id)) {
                listed++;
            }
        }
        return listed;
    }

    /**
     * Gets {@code length} bytes at {@code shardOffset} of the shard from the first source listing it; null when none
     * does. Each get is timed against its agent ({@link LateAgents}).
     */
    private Future<Void> getShard(Sources from, int shardId, long shardOffset, long length,
                                         long localAddress) {
        if (from.distrusted().contains(shardId)) {
            return null;
        }
        for (RemoteVolume source : from.volumes()) {
            EcShard shard = source.info().ec().shard(shardId);
            if (shard == null) {
                continue;
            }
            List<Future<Void>> gets = new ArrayList<>(1);
            long at = shardOffset;
            long end = shardOffset + length;
            while (at < end) {
                Segment segment = shard.segmentAt(at);
                UcxRemoteKey key = segment == null ? null : source.keyOf(shard, segment);
                if (key == null || !key.isValid()) {
                    return Future.failedFuture(ReadFailure.volumeTrouble(source.where() + ": shard " + shardId
                            + " offset " + at + " is not mapped or its key was released (list changed)"));
                }
                long n = Math.min(end, segment.end()) - at;
                gets.add(key.channel().get(segment.addressOf(at), key, localAddress + (at - shardOffset), n));
                at += n;
            }
            Future<Void> got = gets.size() == 1 ? gets.get(0) : Future.join(gets).mapEmpty();
            timed(source, got);
            return got;
        }
        return null;
    }

    /** Rebuilds the interval of a shard nobody lists from {@code dataShards} other shards at the same offsets. */
    private Future<Void> rebuild(RemoteVolume primary, Sources sources, EcInfo ec, EcInterval missing,
                                 PooledBuffer target, int targetAt) {
        boolean distrusted = sources.distrusted().contains(missing.shardId());
        String what = "shard " + missing.shardId() + " of " + primary.where() + (distrusted
                ? " gave a record that failed its checksum" : sources.aroundLate()
                ? " is listed by no agent on time" : " is listed by no connected agent");
        if (!distrusted && !sources.aroundLate()) {
            holders.shardMissing(primary.volumeId());
        }
        if (rebuild == EcRebuild.FALLBACK) {
            return Future.failedFuture(ReadFailure.volumeTrouble(what + " (sidecar.ecRebuild: fallback)"));
        }
        List<Integer> chosen = new ArrayList<>(ec.dataShards());
        for (int id = 0; id < ec.totalShards() && chosen.size() < ec.dataShards(); id++) {
            if (id != missing.shardId() && listed(sources, id)) {
                chosen.add(id);
            }
        }
        if (chosen.size() < ec.dataShards()) {
            return Future.failedFuture(ReadFailure.volumeTrouble(what + ", and only " + chosen.size() + " of the "
                    + ec.dataShards() + " shards a rebuild needs are"));
        }
        return rebuildSlices(sources, ec, chosen, missing, target, targetAt, 0, what)
                .onSuccess(v -> rebuilt.incrementAndGet(missing.shardId()));
    }

    /** Intervals of shard {@code shardId} rebuilt from other shards so far (listed by no agent, or distrusted). */
    public long rebuiltIntervals(int shardId) {
        return rebuilt.get(shardId);
    }

    /**
     * Rebuilds {@code missing} from offset {@code done} on, one slice at a time: a slice is at most the pool's small
     * buffer, so a rebuild holds {@code dataShards} small buffers whatever the interval's size (a 1 MiB interval of
     * a 10 + 4 volume would otherwise hold ten large buffers, most of a small pool).
     */
    private Future<Void> rebuildSlices(Sources sources, EcInfo ec, List<Integer> chosen, EcInterval missing,
                                       PooledBuffer target, int targetAt, long done, String what) {
        if (done == missing.length()) {
            return Future.succeededFuture();
        }
        int length = (int) Math.min(missing.length() - done, pool.settings().smallBufferBytes());
        List<PooledBuffer> pieces = new ArrayList<>(chosen.size());
        for (int i = 0; i < chosen.size(); i++) {
            PooledBuffer piece = pool.acquire(length);
            if (piece == null) {
                pieces.forEach(PooledBuffer::release);
                return Future.failedFuture(ReadFailure.overloaded("registered buffer pool is used up rebuilding "
                        + what));
            }
            pieces.add(piece);
        }
        List<Future<Void>> gets = new ArrayList<>(chosen.size());
        for (int i = 0; i < chosen.size(); i++) {
            gets.add(getShard(sources, chosen.get(i), missing.shardOffset() + done, length, pieces.get(i).address()));
        }
        return Future.join(gets).transform(got -> {
            if (got.failed()) {
                pieces.forEach(PooledBuffer::release);
                return Future.<Void>failedFuture(got.cause());
            }
            return offTheEventLoop(() -> decode(ec, chosen, pieces, missing, target, targetAt + (int) done, length))
                    .transform(decoded -> {
                        pieces.forEach(PooledBuffer::release);
                        return decoded.failed() ? Future.<Void>failedFuture(decoded.cause())
                                : rebuildSlices(sources, ec, chosen, missing, target, targetAt, done + length, what);
                    });
        });
    }

    /**
     * Runs the Reed-Solomon decode of a slice on a worker thread: it takes long enough at a large slice to hold up the
     * other reads of an event loop. Its completion comes back on the caller's context.
     */
    private static Future<Void> offTheEventLoop(Runnable decode) {
        Context context = Vertx.currentContext();
        if (context == null) {
            decode.run();
            return Future.succeededFuture();
        }
        return context.executeBlocking(() -> {
            decode.run();
            return null;
        }, false);
    }

    /** Rebuilds {@code length} bytes of {@code missing} from the slices of {@code chosen} into {@code target}. */
    private void decode(EcInfo ec, List<Integer> chosen, List<PooledBuffer> pieces, EcInterval missing,
                        PooledBuffer target, int targetAt, int length) {
        byte[][] shards = new byte[ec.totalShards()][];
        boolean[] present = new boolean[ec.totalShards()];
        for (int i = 0; i < chosen.size(); i++) {
            shards[chosen.get(i)] = new byte[length];
            pieces.get(i).buffer().get(shards[chosen.get(i)], 0, length);
            present[chosen.get(i)] = true;
        }
        for (int id = 0; id < ec.dataShards(); id++) {
            if (shards[id] == null) {
                shards[id] = new byte[length];
            }
        }
        codec(ec).reconstructData(shards, present, 0, length);
        ByteBuffer into = target.buffer();
        into.position(targetAt);
        into.put(shards[missing.shardId()], 0, length);
    }

    private static boolean listed(Sources sources, int shardId) {
        if (sources.distrusted().contains(shardId)) {
            return false;
        }
        for (RemoteVolume source : sources.volumes()) {
            if (source.info().ec().shard(shardId) != null) {
                return true;
            }
        }
        return false;
    }

    /** The views of the volume to read from, the shards not to read, and whether late agents' views were left out. */
    private record Sources(List<RemoteVolume> volumes, Set<Integer> distrusted, boolean aroundLate) {
    }

    private ReedSolomon codec(EcInfo ec) {
        return codecs.computeIfAbsent(((long) ec.dataShards() << 32) | ec.parityShards(),
                k -> new ReedSolomon(ec.dataShards(), ec.parityShards()));
    }
}
