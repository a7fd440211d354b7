package org.seaweedfs.rdma.sidecar.resilience;

import org.seaweedfs.rdma.sidecar.HedgeDelay;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPath;
import org.seaweedfs.rdma.sidecar.ReadPathStatus;
import org.seaweedfs.rdma.sidecar.connection.AgentPeer;
import org.seaweedfs.rdma.sidecar.connection.AgentRoute;
import org.seaweedfs.rdma.sidecar.connection.ConnectionManagerVerticle;
import org.seaweedfs.rdma.sidecar.connection.PeerState;
import org.seaweedfs.rdma.sidecar.ec.EcShardReader;
import org.seaweedfs.rdma.sidecar.fallback.VolumeServerSource;
import org.seaweedfs.rdma.sidecar.read.RoutedNeedleSource;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedRetryMetrics;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryRegistry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.seaweedfs.rdma.config.Fallback;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.seaweedfs.rdma.volume.FileId;

/**
 * The read path the APIs use: RDMA through the agent serving the volume, guarded per agent by a Resilience4j
 * circuit breaker and retry, degrading in the configured order ({@code sidecar.fallback}) to read-through over
 * the agent's control channel and to HTTP from the volume server. {@link NeedleStat#source()} says which path
 * served (a {@link ReadPath}).
 *
 * <p>Resilience4j with Vert.x (no blocking, no scheduler threads): {@code tryAcquirePermission()}, run the
 * future, then {@code onSuccess}/{@code onError} with the measured duration; retries wait on
 * {@code vertx.setTimer}, so every attempt runs on the caller's context.
 *
 * <p>What counts where:
 * <ul>
 *   <li>Unavailable/timeout (and unexpected exceptions, as unavailable): a breaker failure; retried while
 *       attempts remain and the agent is up; then the fallbacks.</li>
 *   <li>Not found, bad request, range: the path worked (a breaker success); final, never retried, no fallback
 *       (the agent's answer is the volume server's answer).</li>
 *   <li>Refused at this sidecar's own bounds ({@link ReadFailure#overload()}: registered buffers used up, reads in
 *       flight): retried and then the fallbacks like unavailable, but <b>not</b> counted against the breaker.</li>
 *   <li>Corrupt: never retried on RDMA and <b>not</b> counted against the breaker (it is the data, not the
 *       transport: opening the breaker would push every healthy read of that agent onto slower paths); counted in
 *       {@code seaweedfs.rdma.corrupt.reads{agent}} and the fallbacks tried (a read-through or another replica
 *       verifies its own copy; corrupt bytes are never served).</li>
 *   <li>Data gone ({@link ReadFailure#dataGone()}: the record where the agent's needle map points is no longer the
 *       needle, e.g. its .dat was truncated in place, and looking it up again did not help): retried (a new lookup
 *       answers once the agent reopened the volume; UNAVAILABLE while the record is still cut away) and then the
 *       fallbacks, <b>not</b> counted against
 *       the breaker.</li>
 *   <li>Any other trouble of one volume (an EC volume short of shards or switching generation, an agent answering
 *       it cannot serve the volume now): not counted either ({@link BreakerBlame}).</li>
 * </ul>
 *
 * <p>An agent the connection manager declares down (pings, lost channel) has its breaker opened at once; its
 * reads go straight to the fallbacks until it is up again; its successful reconnection turns the breaker half-open
 * at once, and the half-open trials close it.
 *
 * <p>Hedged reads ({@link HedgedRead}): a read has one deadline ({@code sidecar.readTimeout}) and no per-attempt
 * timer. An RDMA read not answered within its agent's hedge delay ({@link HedgeDelay}: the agent's recent p99,
 * bounded by the deadline) starts a second source, within a budget ({@link HedgeBudget}); the first answer is used
 * and the others given back when they land. The second source is one that does not wait on the same agent: for an
 * erasure-coded volume, a read that rebuilds from the other agents' shards those of the shard agents that answered
 * nothing for the read's hedge delay ({@link EcShardReader#rebuildAround}: late, down or merely stopped before it
 * could be found so), as many as can be gone around together and never only agents an earlier rebuild of the read
 * went around; else the volume server ({@code http}). Read-through is no hedge: it asks the agent the read is
 * waiting on. A hedge that in turn answers nothing within a hedge delay is followed by the next source, a few at most
 * per read. A hedge that wins counts as a failure of the agent's breaker (not for an EC volume, whose late agent may
 * be another), so an agent that stopped answering is soon skipped; reads already in flight to it are hedged without
 * the budget once it is known bad.
 *
 * <p>It also answers {@link ReadPathStatus} (healthy: every agent up with a closed breaker; degraded: some agent
 * down or breaker not closed, but RDMA, read-through or HTTP can still serve; unhealthy: no path).
 */
public final class ResilientNeedleSource implements NeedleSource, ReadPathStatus {

    private static final Logger LOG = LoggerFactory.getLogger(ResilientNeedleSource.class);
    /** The Retry-After of a read that waited out its deadline while the sidecar was starting. */
    static final int STARTING_RETRY_AFTER_SECONDS = 1;

    private final Vertx vertx;
    private final ConnectionManagerVerticle manager;
    private final RoutedNeedleSource rdma;
    private final RoutedNeedleSource readThrough;
    private final NeedleSource http;
    private final AgentPeer.Listener peerStates = this::peerStateChanged;
    private final ResilienceSettings settings;
    private final CircuitBreakerRegistry breakers;
    private final RetryRegistry retries;
    private final ConcurrentMap<String, AgentGuard> guards = new ConcurrentHashMap<>();
    /**
     * The guard looked up last, read and replaced by every event loop without a lock: an immutable memo, so a racing
     * reader sees a whole one (the map lookup per read showed in the 4 KiB read's profile).
     */
    private GuardMemo lastGuard;
    private final MeterRegistry registry;
    private final Hedging hedging;
    /** The fallbacks a hedge tries, in order: those that do not read through the agent. */
    private final List<Fallback> hedgeOrder;
    /** The fallbacks of a read whose agent's breaker is open: those that do not go through the agent first. */
    private final List<Fallback> agentFreeFirst;
    /** The source of a hedge that rebuilds an EC read around a late agent, as the hedge meters name it. */
    static final String EC_REBUILD = "ec-rebuild";
    private volatile EcShardReader ecShards;
    /**
     * One read's whole time ({@code sidecar.readTimeout}): the wait for the start-up, the RDMA attempts and the
     * fallbacks share it, so a read answers (or fails TIMEOUT) by then whichever paths it tries.
     */
    private final long readTimeoutNanos;
    private volatile ToLongFunction<String> mirrorSizes = agent -> 0;

    private record GuardMemo(String agent, AgentGuard guard) {
    }

    /**
     * An agent's breaker, retry, breaker meters, transition log and hedge delay, looked up once per read by the
     * agent's name.
     */
    record AgentGuard(CircuitBreaker breaker, Retry retry, BreakerMeters meters, BreakerTransitions transitions,
            HedgeDelay hedgeDelay) {

        /** The breaker counts the call a success: the path worked, whatever the answer. */
        void succeeded(long nanos) {
            breaker.onSuccess(nanos, TimeUnit.NANOSECONDS);
            meters.succeeded(nanos);
        }

        void failed(long nanos, Throwable failure) {
            breaker.onError(nanos, TimeUnit.NANOSECONDS, failure);
            meters.failed(nanos);
            transitions.failed(failure.getMessage());
        }
    }

    /** One operation on any path: stat, or a read (whole or slice) with the client's volume-server hint. */
    private interface Op<T> {
        Future<T> on(NeedleSource source);

        /** Whether the fallbacks may serve it when RDMA cannot ({@link #withoutFallbacks()}: no). */
        default boolean mayFallBack() {
            return true;
        }

        /** Gives back an answer that came after the read's deadline (pooled memory, for content). */
        default void discard(T late) {
        }
    }

    /**
     * @param rdma        the RDMA path (NeedleReader), reading through the route this source resolves
     * @param readThrough the agent copies the bytes (ReadThroughSource); null when not available
     * @param http        the volume server over HTTP ({@link VolumeServerSource}); null when not available
     * @param registry    breaker, retry and fallback meters go here
     */
    public ResilientNeedleSource(Vertx vertx, ConnectionManagerVerticle manager, RoutedNeedleSource rdma,
                                 RoutedNeedleSource readThrough, NeedleSource http, ResilienceSettings settings,
                                 MeterRegistry registry) {
        this(vertx, manager, rdma, readThrough, http, settings, registry, ReadClock.system());
    }

    /** @param clock what the reads' hedges and deadlines are timed by */
    public ResilientNeedleSource(Vertx vertx, ConnectionManagerVerticle manager, RoutedNeedleSource rdma,
                                 RoutedNeedleSource readThrough, NeedleSource http, ResilienceSettings settings,
                                 MeterRegistry registry, ReadClock clock) {
        this.vertx = vertx;
        this.manager = manager;
        this.rdma = rdma;
        this.readThrough = readThrough;
        this.http = http;
        this.settings = settings;
        this.registry = registry;
        this.readTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(rdma.readTimeoutMs());
        this.hedging = new Hedging(clock, registry);
        this.hedgeOrder = settings.fallback().stream().filter(f -> f != Fallback.READ_THROUGH).toList();
        this.agentFreeFirst = settings.fallback().stream().sorted(Comparator.comparing(f -> f == Fallback.READ_THROUGH))
                .toList();
        for (Fallback f : settings.fallback()) {
            if (!available(f)) {
                LOG.warn("sidecar.fallback lists " + f.configName + " but that path is not available; it is skipped");
            }
        }
        this.breakers = CircuitBreakerRegistry.of(settings.circuitBreakerConfig());
        this.retries = RetryRegistry.of(settings.retryConfig());
        manager.addListener(peerStates);
        TaggedRetryMetrics.ofRetryRegistry(retries).bindTo(registry);
    }

    /** Stops listening to the connection manager. */
    public void close() {
        manager.removeListener(peerStates);
    }

    /**
     * The pings are the strongest failure signal: a peer declared down opens its breaker at once (rather than after
     * a window of failed reads). A successful reconnection (connect, hello, volume list and needle-map sync) is
     * evidence enough that the agent serves again: an open breaker goes half-open at once instead of waiting out
     * {@code openDuration}, so reads return to RDMA as soon as the agent is back; its half-open trials close it
     * (or open it again when they fail).
     */
    private void peerStateChanged(AgentPeer peer, PeerState previous, PeerState next, String reason) {
        AgentGuard guard = guard(peer.name());
        CircuitBreaker b = guard.breaker();
        CircuitBreaker.State state = b.getState();
        if (next == PeerState.DOWN
                && (state == CircuitBreaker.State.CLOSED || state == CircuitBreaker.State.HALF_OPEN)) {
            guard.transitions().failed("agent down: " + reason);
            b.transitionToOpenState();
        } else if (next == PeerState.UP && state == CircuitBreaker.State.OPEN) {
            b.transitionToHalfOpenState();
        }
        guard.transitions().observe();
    }

    /**
     * The reader of EC shards the RDMA path uses: a read of an EC volume waiting on a late agent is hedged to a rebuild
     * around it.
     */
    public void ecShards(EcShardReader reader) {
        this.ecShards = reader;
    }

    /** Where {@link #agents()} gets the size of each agent's needle-map mirror (the NeedleReader knows). */
    public void mirrorSizes(ToLongFunction<String> sizes) {
        this.mirrorSizes = sizes;
    }

    @Override
    public Future<NeedleStat> stat(FileId fid) {
        return execute(fid, statOp(fid, true));
    }

    private static Op<NeedleStat> statOp(FileId fid, boolean fallBack) {
        return new Op<>() {
            @Override
            public Future<NeedleStat> on(NeedleSource source) {
                return source.stat(fid);
            }

            @Override
            public boolean mayFallBack() {
                return fallBack;
            }
        };
    }

    @Override
    public Future<NeedleContent> read(FileId fid) {
        return read(fid, null);
    }

    @Override
    public Future<NeedleContent> read(FileId fid, String volumeServerHint) {
        return execute(fid, contentOp(source -> source.read(fid, volumeServerHint)));
    }

    /**
     * The slice through the same breakers, retries and fallbacks: RDMA and read-through read the whole needle
     * (verified here) and cut it; the HTTP fallback asks the volume server for the range only.
     */
    @Override
    public Future<NeedleContent> readSlice(FileId fid, String volumeServerHint, long offset, long length,
                                           long maxPlainBytes) {
        return execute(fid,
                contentOp(source -> source.readSlice(fid, volumeServerHint, offset, length, maxPlainBytes)));
    }

    /**
     * Many needles with one deadline ({@code sidecar.readTimeout} from now) for all. The needles of each volume whose
     * agent is up, listed, not erasure-coded and has a closed breaker are read together through it
     * ({@link RoutedNeedleSource#readMany}): one breaker permission and one outcome for their gets, which, not landed
     * within the agent's hedge delay, hand their needles to the single-read path. Every needle the batch does not
     * serve itself, and every needle of any other volume, is read as {@link #readSlice} reads it, within the batch's
     * deadline: fallbacks, retries, hedges and errors are exactly those of one read.
     */
    @Override
    public List<Future<NeedleContent>> readMany(List<FileId> fids, long maxPlainBytes) {
        long deadline = hedging.clock().nanoTime() + readTimeoutNanos;
        @SuppressWarnings("unchecked")
        Future<NeedleContent>[] reads = new Future[fids.size()];
        for (int[] indexes : byVolume(fids)) {
            AgentRoute route = batchRoute(fids.get(indexes[0]).volumeId());
            AgentGuard guard = route == null ? null : guard(route.peer().name());
            if (guard == null || !guard.breaker().tryAcquirePermission()) {
                for (int i : indexes) {
                    reads[i] = readOne(fids.get(i), maxPlainBytes, deadline);
                }
                continue;
            }
            List<FileId> some = indexes.length == fids.size() ? fids : new ArrayList<>(indexes.length);
            if (some != fids) {
                for (int i : indexes) {
                    some.add(fids.get(i));
                }
            }
            long start = hedging.clock().nanoTime();
            long giveUpMillis = TimeUnit.NANOSECONDS.toMillis(Math.min(guard.hedgeDelay().nanos(), deadline - start));
            RoutedNeedleSource.Batch batch = rdma.readMany(route, some, maxPlainBytes, giveUpMillis,
                    k -> readOne(some.get(k), maxPlainBytes, deadline));
            for (int k = 0; k < some.size(); k++) {
                reads[indexes[k]] = batch.reads().get(k);
            }
            if (batch.gets() == null) {
                guard.breaker().releasePermission();
            } else {
                batch.gets().onComplete(ar -> {
                    if (ar.succeeded()) {
                        guard.succeeded(hedging.clock().nanoTime() - start);
                    } else {
                        guard.breaker().releasePermission(); // each needle's own read tells the breaker
                    }
                    guard.transitions().observe();
                });
            }
        }
        return Arrays.asList(reads);
    }

    /** The indexes of the fids of each volume, in request order (most calls read one volume or a few). */
    private static List<int[]> byVolume(List<FileId> fids) {
        long first = fids.isEmpty() ? 0 : fids.get(0).volumeId();
        int same = 0;
        while (same < fids.size() && fids.get(same).volumeId() == first) {
            same++;
        }
        if (same == fids.size()) {
            int[] all = new int[same];
            Arrays.setAll(all, i -> i);
            return same == 0 ? List.of() : List.<int[]>of(all);
        }
        Map<Long, List<Integer>> byVolume = new LinkedHashMap<>();
        for (int i = 0; i < fids.size(); i++) {
            byVolume.computeIfAbsent(fids.get(i).volumeId(), v -> new ArrayList<>()).add(i);
        }
        List<int[]> groups = new ArrayList<>(byVolume.size());
        byVolume.values().forEach(g -> groups.add(g.stream().mapToInt(Integer::intValue).toArray()));
        return groups;
    }

    /** The route a batch of the volume's reads may take: an up, ready agent listing it, not EC, breaker closed. */
    private AgentRoute batchRoute(long volumeId) {
        AgentRoute route = manager.routeFor(volumeId);
        boolean usable = route != null && route.volume() != null && route.volume().info().ec() == null
                && route.connection() != null && route.connection().isReady() && route.peer().isUp()
                && guard(route.peer().name()).breaker().getState() == CircuitBreaker.State.CLOSED;
        return usable ? route : null;
    }

    /** One needle of a batch, as {@link #readSlice} of the whole plain needle, within the batch's deadline. */
    private Future<NeedleContent> readOne(FileId fid, long maxPlainBytes, long deadline) {
        return execute(fid, contentOp(source -> source.readSlice(fid, null, 0, -1, maxPlainBytes)), deadline);
    }

    /** A read of content, which a late answer must give back. */
    private static Op<NeedleContent> contentOp(Function<NeedleSource, Future<NeedleContent>> read) {
        return contentOp(read, true);
    }

    private static Op<NeedleContent> contentOp(Function<NeedleSource, Future<NeedleContent>> read, boolean fallBack) {
        return new Op<>() {
            @Override
            public Future<NeedleContent> on(NeedleSource source) {
                return read.apply(source);
            }

            @Override
            public boolean mayFallBack() {
                return fallBack;
            }

            @Override
            public void discard(NeedleContent late) {
                late.release();
            }
        };
    }

    /**
     * Slices through the same agents, breakers and retries, but never the fallbacks: a slice RDMA cannot serve
     * fails (UNAVAILABLE, or the RDMA path's own answer) as soon as that is known. For {@code /read}, whose client
     * ({@code weed mount}) re-reads anything not served over RDMA from the volume server itself.
     */
    public NeedleSource withoutFallbacks() {
        return new NeedleSource() {
            @Override
            public Future<NeedleStat> stat(FileId fid) {
                return execute(fid, statOp(fid, false));
            }

            @Override
            public Future<NeedleContent> read(FileId fid) {
                return execute(fid, contentOp(source -> source.read(fid), false));
            }

            @Override
            public Future<NeedleContent> readSlice(FileId fid, String volumeServerHint, long offset, long length,
                                                   long maxPlainBytes) {
                return execute(fid, contentOp(source -> source.readSlice(fid, volumeServerHint, offset, length,
                        maxPlainBytes), false));
            }
        };
    }

    /** The breaker of an agent (created on first use); for tests and operators. */
    public CircuitBreaker breaker(String agent) {
        return guard(agent).breaker();
    }

    public Retry retry(String agent) {
        return guard(agent).retry();
    }

    /** How long a read waits on the agent before it is hedged (created on first use); for tests and operators. */
    long hedgeDelayNanos(String agent) {
        return guard(agent).hedgeDelay().nanos();
    }

    HedgeBudget hedgeBudget() {
        return hedging.budget();
    }

    private AgentGuard guard(String agent) {
        GuardMemo memo = lastGuard;
        if (memo != null && memo.agent() == agent) { // the same peer's name (a field): most reads repeat the last agent
            return memo.guard();
        }
        AgentGuard known = guards.get(agent); // the common case, without computeIfAbsent's bin check
        AgentGuard guard = known != null ? known : guards.computeIfAbsent(agent, name -> {
            CircuitBreaker breaker = breakers.circuitBreaker(name);
            HedgeDelay delay = new HedgeDelay(readTimeoutNanos);
            hedging.gauge(name, delay);
            return new AgentGuard(breaker, retries.retry(name), new BreakerMeters(breaker, registry),
                    new BreakerTransitions(breaker), delay);
        });
        lastGuard = new GuardMemo(agent, guard);
        return guard;
    }

    private <T> Future<T> execute(FileId fid, Op<T> op) {
        return execute(fid, op, hedging.clock().nanoTime() + readTimeoutNanos);
    }

    /** @param deadline when the read gives up, whatever path it is on (System.nanoTime) */
    private <T> Future<T> execute(FileId fid, Op<T> op, long deadline) {
        AgentRoute route = onTime(manager.routeFor(fid.volumeId()));
        if (route == null) {
            return manager.startup().isOpen() ? awaitStartup(fid, op, deadline) : withoutAgent(fid, op, deadline);
        }
        AgentPeer peer = route.peer();
        if (!peer.isUp()) {
            return fallback(op, settings.fallback(), route, "agent_down", ReadFailure.unavailable("agent " + peer.name()
                    + " is down" + (peer.lastError() == null ? "" : ": " + peer.lastError()), null), 0, deadline,
                    false);
        }
        AgentGuard guard = guard(peer.name());
        // The attempts answer the race directly (a recover() layer on every read was measurable at 4 KiB); only a read
        // not answered within the call waits in the queues for its hedge and its deadline.
        HedgedRead<T> race = new HedgedRead<>(hedging, fid, guard, peer, paths(op, route, deadline),
                VertxInternals.callerContext(vertx), deadline);
        attempt(op, route, guard, guard.retry().asyncContext(), race, deadline);
        race.arm();
        return race.future();
    }

    /**
     * {@code route}, or for an EC volume whose agent is late with its shard gets, the route through another up agent
     * listing the volume and on time (its lookups do not wait on the late agent's control channel).
     */
    private AgentRoute onTime(AgentRoute route) {
        if (!erasureCoded(route) || !ecShards.late(route.peer().name())) {
            return route;
        }
        AgentRoute other = anotherHolder(route);
        return other == null ? route : other;
    }

    /**
     * The route of an EC read's hedge: {@code route}, or through another agent listing the volume when its first agent
     * is down, late or among those the hedge goes {@code around} (the hedge's lookup must not wait on it); null when
     * there is no such agent.
     */
    private AgentRoute ecHedgeRoute(AgentRoute route, Set<String> around) {
        String first = route.peer().name();
        boolean firstBad = !route.peer().isUp() || ecShards.late(first) || around.contains(first);
        return firstBad ? anotherHolder(route) : route;
    }

    /** Whether {@code route} reads an EC volume, and this source knows the reader of its shards. */
    private boolean erasureCoded(AgentRoute route) {
        return ecShards != null && route != null && route.volume() != null && route.volume().info().ec() != null;
    }

    /**
     * The route through another agent listing {@code route}'s EC volume that is up, on time and whose breaker is
     * closed; null when there is none.
     */
    private AgentRoute anotherHolder(AgentRoute route) {
        for (AgentPeer other : manager.peers()) {
            if (other != route.peer() && other.isUp() && !ecShards.late(other.name())
                    && breakerState(other.name()) == CircuitBreaker.State.CLOSED) {
                AgentRoute via = other.route(route.volumeId());
                if (via.volume() != null && via.volume().info().ec() != null) {
                    return via;
                }
            }
        }
        return null;
    }

    /**
     * The agents that listed {@code route}'s EC volume when last up and are down now. Once down an agent no longer
     * lists the volume, so it is not found late any more, but a read started before may still wait on its shard gets.
     */
    private List<String> downHolders(AgentRoute route) {
        List<String> down = new ArrayList<>(1);
        for (AgentPeer peer : manager.peers()) {
            if (!peer.isUp() && peer.volumes().contains(route.volumeId())) {
                down.add(peer.name());
            }
        }
        return down;
    }

    /**
     * What a raced read does besides RDMA: the fallbacks after it, a hedge to a rebuild around the EC shard agents it
     * may be waiting on in vain or to the first fallback that can serve without the agent.
     */
    private <T> HedgedRead.Paths<T> paths(Op<T> op, AgentRoute route, long deadline) {
        return new HedgedRead.Paths<>() {
            /** The agents the EC rebuild {@link #hedgeSource} offered goes around. */
            private Set<String> offeredAround = Set.of();
            /** The agents each EC rebuild hedge of this read went around, in order. */
            private List<Set<String>> wentAround = List.of();

            @Override
            public Future<T> afterRdma(Throwable failure, String hedged) {
                return afterAttempts(op, route, failure, deadline, hedged);
            }

            @Override
            public String hedgeSource(Set<String> tried) {
                if (erasureCoded(route) && wentAround.size() < HedgedRead.MAX_HEDGES) {
                    // Agents whose gets (or lookups) have answered nothing for as long as this read waited before
                    // looking: whatever their own delay or state, a second read goes around them if the other agents
                    // hold enough shards; should it stall as well, a third goes around agents it did not.
                    Set<String> around = ecShards.rebuildAround(route.volume(), downHolders(route), hedgeDelayNanos(),
                            wentAround);
                    if (LOG.isDebugEnabled()) {
                        LOG.debug("EC hedge look via {}: a rebuild around {} (earlier around {})", route.peer().name(),
                                around, wentAround);
                    }
                    if (around != null && ecHedgeRoute(route, around) != null) {
                        offeredAround = around;
                        return EC_REBUILD;
                    }
                }
                if (op.mayFallBack()) {
                    for (Fallback path : hedgeOrder) {
                        if (!tried.contains(path.configName) && fallbackSource(path, route) != null) {
                            return path.configName;
                        }
                    }
                }
                return null;
            }

            @Override
            public boolean mayHedgeLater() {
                return erasureCoded(route);
            }

            @Override
            public long hedgeDelayNanos() {
                long agent = guard(route.peer().name()).hedgeDelay().nanos();
                return mayHedgeLater() ? Math.min(agent, ecShards.lateAfterNanos(route.volume())) : agent;
            }

            @Override
            public boolean goesAroundKnownBad(String source) {
                if (!EC_REBUILD.equals(source)) {
                    return false;
                }
                for (String agent : offeredAround) {
                    AgentPeer peer = manager.peer(agent);
                    boolean bad = peer == null || !peer.isUp() || ecShards.late(agent);
                    if (bad && ecShards.claimFreeHedgeAround(agent)) {
                        return true;
                    }
                }
                // Merely slower than this read's delay, or every read waiting on the bad agent is hedged already (this
                // one, going around it, is slow itself): within the budget.
                return false;
            }

            @Override
            public Future<T> hedge(String source) {
                if (EC_REBUILD.equals(source)) {
                    List<Set<String>> went = new ArrayList<>(wentAround);
                    went.add(offeredAround);
                    wentAround = went;
                    // The hedge's own shard gets, and reads started meanwhile, avoid them.
                    ecShards.goAround(offeredAround);
                    AgentRoute other = ecHedgeRoute(route, offeredAround);
                    if (other != null) {
                        return start(op, rdma.via(other));
                    }
                }
                return fallback(op, hedgeOrder, route, "hedge", ReadFailure.unavailable("agent " + route.peer().name()
                        + " did not answer within its hedge delay", null), 0, deadline, true);
            }

            @Override
            public void discard(T unused) {
                op.discard(unused);
            }

            @Override
            public ReadFailure pastDeadline() {
                return ResilientNeedleSource.this.pastDeadline(null);
            }

            @Override
            public boolean blamesAgent() {
                return route.volume() == null || route.volume().info().ec() == null;
            }
        };
    }

    /**
     * A read that found no agent while the sidecar is starting: a configured agent may yet list its volume, so it
     * waits for each agent's connection, up to the read's deadline ({@code sidecar.readTimeout}), and then fails
     * UNAVAILABLE saying so, with a {@link ReadFailure#retryAfterSeconds()} (not the fallbacks: they would answer for
     * a volume the agents may serve, and a sidecar that is starting is no reason to load the volume servers).
     */
    private <T> Future<T> awaitStartup(FileId fid, Op<T> op, long deadline) {
        long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - hedging.clock().nanoTime());
        return manager.startup().nextChange(vertx, leftMs).compose(changed -> changed ? execute(fid, op, deadline)
                : Future.failedFuture(ReadFailure.starting("the sidecar is starting: no agent connected so far serves "
                + "volume " + fid.volumeId() + " (still connecting to " + manager.startup().pending() + ")",
                STARTING_RETRY_AFTER_SECONDS)));
    }

    /**
     * A read no agent serves, start-up over: a discovery through the master (when set) and the fallbacks. Not found
     * when that is certain: every agent is connected and lists no such volume, and nothing else could know it (no
     * master; a volume server asked through the HTTP fallback answers for itself, and so does the master).
     */
    private <T> Future<T> withoutAgent(FileId fid, Op<T> op, long deadline) {
        long volumeId = fid.volumeId();
        Future<Void> discovery = manager.discover(volumeId);
        discovery.onFailure(e -> LOG.debug("Discovery of volume " + volumeId + ": " + e.getMessage()));
        boolean agentsSure = manager.everyAgentUp();
        String notUp = manager.agentsNotUp();
        String message = "no agent serves volume " + volumeId + (notUp.isEmpty() ? "" : " (" + notUp + ")");
        if (manager.master() == null || op.mayFallBack() && offers(Fallback.HTTP)) {
            ReadFailure cause = agentsSure && manager.master() == null
                    ? ReadFailure.notFound(message + " and no master is set") : ReadFailure.unavailable(message, null);
            return fallback(op, settings.fallback(), null, "no_agent", cause, 0, deadline, false);
        }
        // A master, but no HTTP fallback to ask it: its own lookup (the discovery) says whether the volume exists.
        return discovery.transform(ar -> ar.failed() && ar.cause() instanceof ReadFailure rf
                && rf.kind() == ReadFailure.Kind.NOT_FOUND
                ? Future.failedFuture(ReadFailure.notFound(message + "; " + rf.getMessage()))
                : fallback(op, settings.fallback(), null, "no_agent", ReadFailure.unavailable(message, null), 0,
                        deadline, false));
    }

    /**
     * What a read the RDMA attempts gave up on answers: the fallbacks but {@code hedged} (a failed hedge's source, null
     * without one), or the failure when it is an answer.
     */
    private <T> Future<T> afterAttempts(Op<T> op, AgentRoute route, Throwable e, long deadline, String hedged) {
        if (e instanceof CallNotPermittedException) {
            ReadFailure open = ReadFailure.unavailable("circuit breaker of agent " + route.peer().name() + " is open",
                    e);
            // An EC volume other agents list is read through one of them.
            AgentRoute other = erasureCoded(route) ? anotherHolder(route) : null;
            // The breaker holds the agent's connection failing, and read-through goes over it: the others first.
            Function<Throwable, Future<T>> fallbacks = x -> fallback(op, without(hedged, agentFreeFirst), route,
                    "breaker_open", open, 0, deadline, true);
            return other == null ? fallbacks.apply(open) : start(op, rdma.via(other)).recover(x -> {
                ReadFailure failure = asReadFailure(x);
                return isAnswer(failure) ? Future.failedFuture(failure) : fallbacks.apply(failure);
            });
        }
        ReadFailure failure = asReadFailure(e);
        if (isAnswer(failure)) {
            return Future.failedFuture(failure);
        }
        String reason = failure.kind() == ReadFailure.Kind.CORRUPT ? "corrupt" : "retries_exhausted";
        return fallback(op, without(hedged, settings.fallback()), route, reason, failure, 0, deadline, true);
    }

    /** {@code order} without the fallback named {@code hedged} (null: all of it). */
    private static List<Fallback> without(String hedged, List<Fallback> order) {
        return hedged == null ? order : order.stream().filter(f -> !f.configName.equals(hedged)).toList();
    }

    /**
     * One RDMA attempt; on a retriable failure, schedules the next on the caller's context (through the agent's
     * new connection when it reconnected meanwhile) if it can start before the read's deadline. No attempt has a
     * timer of its own: the race holds the read to its deadline and gives back an answer that comes too late.
     */
    private <T> void attempt(Op<T> op, AgentRoute resolved, AgentGuard guard, Retry.AsyncContext<T> retry,
                             HedgedRead<T> race, long deadline) {
        // A route resolved just before the agent reconnected goes through the new connection: through the old one it
        // would fail, and a half-open breaker would count that against the agent that is back.
        AgentRoute route = resolved.current();
        AgentPeer peer = route.peer();
        CircuitBreaker breaker = guard.breaker();
        boolean permitted = breaker.tryAcquirePermission();
        guard.transitions().observe();
        if (!permitted) {
            guard.meters().notPermitted();
            CallNotPermittedException notPermitted = CallNotPermittedException.createCallNotPermittedException(breaker);
            retry.onError(notPermitted);
            race.rdmaGaveUp(notPermitted);
            return;
        }
        long start = hedging.clock().nanoTime();
        rdmaAttempt(op, route).onComplete(ar -> {
            long nanos = hedging.clock().nanoTime() - start;
            if (race.lostRace()) {
                // Counted failed when the hedge won (that used its permission): its latency is news, and whether the
                // agent answered after all (with the needle, or about its bytes or volume).
                if (ar.succeeded()) {
                    guard.hedgeDelay().record(nanos);
                    answersAgain(peer, guard);
                    race.rdmaSucceeded(ar.result());
                } else {
                    if (BreakerBlame.agentAnswered(asReadFailure(ar.cause()))) {
                        answersAgain(peer, guard);
                    }
                    race.rdmaGaveUp(ar.cause());
                }
                return;
            }
            if (ar.succeeded()) {
                guard.succeeded(nanos);
                guard.hedgeDelay().record(nanos);
                guard.transitions().observe();
                retry.onComplete();
                race.rdmaSucceeded(ar.result());
                return;
            }
            ReadFailure failure = asReadFailure(ar.cause());
            if (failure.kind() == ReadFailure.Kind.CORRUPT) {
                breaker.releasePermission();
                race.rdmaExcused();
                corruptReads(peer.name()).increment();
            } else if (!BreakerBlame.blamesConnection(failure)) {
                // This sidecar's own bound (pool, reads in flight), bytes gone from under the agent's needle map (a
                // .dat cut in place) or one volume's trouble: the connection is fine, so none may open the agent's
                // breaker and send every later read of every volume to the slower paths; nor may a hedge that wins
                // while the retry is out.
                breaker.releasePermission();
                race.rdmaExcused();
            } else if (isAnswer(failure)) {
                guard.succeeded(nanos);
                guard.hedgeDelay().record(nanos);
            } else {
                guard.failed(nanos, failure);
            }
            guard.transitions().observe();
            long wait = retry.onError(failure);
            if (wait < 0 || !peer.isUp() || race.isSettled()
                    || hedging.clock().nanoTime() + TimeUnit.MILLISECONDS.toNanos(wait) >= deadline) {
                race.rdmaGaveUp(failure);
            } else if (wait == 0) {
                vertx.getOrCreateContext().runOnContext(v ->
                        attempt(op, route, guard, retry, race, deadline));
            } else {
                vertx.setTimer(wait, t -> attempt(op, route, guard, retry, race, deadline));
            }
        });
    }

    /**
     * A read that lost its race to a hedge was answered after all (the needle, or that its bytes are gone, as when its
     * .dat was cut under the agent mid-read): the agent serves again. A breaker that lost races
     * opened (a stall: a pause, a stop, a burst on a loaded host) goes half-open at once, as on a reconnection, rather
     * than after {@code openDuration}: new reads are back on RDMA as soon as the stall ends, and the half-open trials
     * close the breaker or open it again. While the agent stays stopped no answer lands, and it stays open.
     */
    private static void answersAgain(AgentPeer peer, AgentGuard guard) {
        if (peer.isUp() && guard.breaker().getState() == CircuitBreaker.State.OPEN) {
            guard.breaker().transitionToHalfOpenState();
            guard.transitions().observe();
        }
    }

    /**
     * The fallbacks of {@code order} from {@code index} on, each held to what is left of the read's time; {@code cause}
     * is reported when none can serve. A {@code raced} chain runs under a {@link HedgedRead}, whose own deadline
     * answers the read in time and gives back what comes later: it sets no timer.
     */
    private <T> Future<T> fallback(Op<T> op, List<Fallback> order, AgentRoute route, String reason,
                                   ReadFailure cause, int index, long deadline, boolean raced) {
        if (!op.mayFallBack()) {
            return Future.failedFuture(cause);
        }
        for (int i = index; i < order.size(); i++) {
            Fallback path = order.get(i);
            NeedleSource source = fallbackSource(path, route);
            if (source == null) {
                continue;
            }
            if (deadline - hedging.clock().nanoTime() <= 0) {
                if (!raced) {
                    hedging.pastDeadline();
                }
                return Future.failedFuture(pastDeadline(cause));
            }
            int next = i + 1;
            fallbackReads(path, reason).increment();
            Future<T> tried = start(op, source);
            return (raced ? tried : byDeadline(op, tried, deadline)).recover(e -> {
                ReadFailure failure = asReadFailure(e);
                if (isAnswer(failure)) {
                    return Future.failedFuture(failure);
                }
                if (failure.nothingAsked()) {
                    // tells nothing: the reason stands
                    return fallback(op, order, route, reason, cause, next, deadline, raced);
                }
                LOG.debug("Fallback " + path.configName + " failed: " + failure.getMessage());
                return fallback(op, order, route, reason, failure, next, deadline, raced);
            });
        }
        return Future.failedFuture(cause);
    }

    /**
     * {@code answer}, or TIMEOUT at the read's deadline; an answer later than that is given back. Only reads no race
     * times (those that start on the fallbacks) take a timer here.
     */
    private <T> Future<T> byDeadline(Op<T> op, Future<T> answer, long deadline) {
        if (answer.isComplete()) {
            return answer;
        }
        Promise<T> bounded = Promise.promise();
        long leftMs = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - hedging.clock().nanoTime()));
        long timer = vertx.setTimer(leftMs, t -> {
            if (!bounded.future().isComplete()) {
                hedging.pastDeadline();
                bounded.fail(pastDeadline(null));
            }
        });
        answer.onComplete(ar -> {
            vertx.cancelTimer(timer);
            boolean inTime = ar.succeeded() ? bounded.tryComplete(ar.result()) : bounded.tryFail(ar.cause());
            if (!inTime && ar.succeeded()) {
                op.discard(ar.result());
            }
        });
        return bounded.future();
    }

    private ReadFailure pastDeadline(ReadFailure last) {
        return new ReadFailure(ReadFailure.Kind.TIMEOUT, "no path answered within sidecar.readTimeout ("
                + TimeUnit.NANOSECONDS.toMillis(readTimeoutNanos) + " ms)"
                + (last == null ? "" : "; the last failure: " + last.getMessage()), last);
    }

    /** The fallback path's source for this read, null when it cannot serve it (read-through needs an up agent). */
    private NeedleSource fallbackSource(Fallback path, AgentRoute route) {
        return switch (path) {
            case READ_THROUGH -> readThrough == null || route == null || !route.peer().isUp() ? null
                    : readThrough.via(route.current());
            case HTTP -> http;
        };
    }

    private boolean available(Fallback path) {
        return switch (path) {
            case READ_THROUGH -> readThrough != null;
            case HTTP -> http != null;
        };
    }

    /** One try on the RDMA path; it sets no timer (the race times the read). */
    private <T> Future<T> rdmaAttempt(Op<T> op, AgentRoute route) {
        return start(op, rdma.via(route));
    }

    /** The operation on one source; a source that throws fails the future instead. */
    private static <T> Future<T> start(Op<T> op, NeedleSource source) {
        try {
            return op.on(source);
        } catch (RuntimeException e) {
            return Future.failedFuture(e);
        }
    }

    /** A definite answer about the needle (not a failure of the path). */
    static boolean isAnswer(ReadFailure failure) {
        return switch (failure.kind()) {
            case NOT_FOUND, BAD_REQUEST, RANGE_NOT_SATISFIABLE, TOO_LARGE -> true;
            default -> false;
        };
    }

    private static ReadFailure asReadFailure(Throwable t) {
        return t instanceof ReadFailure rf ? rf
                : ReadFailure.unavailable(t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage(), t);
    }

    private Counter fallbackReads(Fallback path, String reason) {
        return Counter.builder("seaweedfs.rdma.fallback.reads")
                .description("Reads handed to a fallback path, by path and why RDMA did not serve them")
                .tag("path", path.configName).tag("reason", reason)
                .register(registry);
    }

    private Counter corruptReads(String agent) {
        return Counter.builder("seaweedfs.rdma.corrupt.reads")
                .description("RDMA reads whose record failed verification (not counted by the breaker)")
                .tag("agent", agent)
                .register(registry);
    }

    // --- ReadPathStatus -------------------------------------------------------------------------------------

    @Override
    public Health health() {
        List<AgentPeer> peers = manager.peers();
        boolean allGood = !peers.isEmpty();
        boolean rdmaPath = false;
        boolean anyUp = false;
        for (AgentPeer p : peers) {
            CircuitBreaker.State state = breakerState(p.name());
            boolean up = p.isUp();
            anyUp |= up;
            allGood &= up && state == CircuitBreaker.State.CLOSED;
            rdmaPath |= up && state != CircuitBreaker.State.OPEN && state != CircuitBreaker.State.FORCED_OPEN;
        }
        if (allGood) {
            return Health.HEALTHY;
        }
        boolean readThroughPath = anyUp && offers(Fallback.READ_THROUGH);
        boolean httpPath = offers(Fallback.HTTP) && manager.master() != null;
        return rdmaPath || readThroughPath || httpPath ? Health.DEGRADED : Health.UNHEALTHY;
    }

    @Override
    public boolean rdmaEnabled() {
        return !manager.peers().isEmpty() || manager.master() != null;
    }

    @Override
    public List<AgentStatus> agents() {
        List<AgentStatus> out = new ArrayList<>();
        for (AgentPeer p : manager.peers()) {
            List<Long> volumes = new ArrayList<>(p.volumes());
            volumes.sort(null);
            out.add(new AgentStatus(p.name(), p.state().label, breakerState(p.name()).name().toLowerCase(Locale.ROOT),
                    volumes, mirrorSizes.applyAsLong(p.name()), p.lastError()));
        }
        return out;
    }

    @Override
    public boolean starting() {
        return manager.startup().isOpen();
    }

    private boolean offers(Fallback path) {
        return settings.fallback().contains(path) && available(path);
    }

    private CircuitBreaker.State breakerState(String agent) {
        return breakers.find(agent).map(CircuitBreaker::getState).orElse(CircuitBreaker.State.CLOSED);
    }

    /** For logs: which paths are configured and available, in order. */
    @Override
    public String toString() {
        List<String> paths = new ArrayList<>(List.of(ReadPath.RDMA.wire));
        settings.fallback().stream().filter(this::available).map(f -> f.configName).forEach(paths::add);
        return "ResilientNeedleSource" + paths;
    }
}
