package org.seaweedfs.rdma.e2e;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.config.EcRebuild;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.config.SidecarConfig;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.connection.AgentPeer;
import org.seaweedfs.rdma.sidecar.connection.ConnectionManagerVerticle;
import org.seaweedfs.rdma.sidecar.ec.EcShardHolders;
import org.seaweedfs.rdma.sidecar.ec.EcShardReader;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.sidecar.read.NeedleReader;
import org.seaweedfs.rdma.sidecar.read.ReadPathOptions;
import org.seaweedfs.rdma.sidecar.resilience.ResilienceSettings;
import org.seaweedfs.rdma.sidecar.resilience.ResilientNeedleSource;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.AgentSetup;
import org.seaweedfs.rdma.testing.HostProcess;
import org.seaweedfs.rdma.testing.StoredNeedles;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.Fixtures;
import org.seaweedfs.rdma.volume.ec.EcTestVolumes;
import org.seaweedfs.rdma.volume.ec.EcWriter;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;
import static org.seaweedfs.rdma.testing.Await.until;

/**
 * An erasure-coded volume (the fixture encoded 10 + 4, real block sizes) over two agents over real UCX (tcp), one of
 * them a process of its own that the test stops with SIGSTOP: its connection stays open, its pings are far off, its
 * shard gets hang. A read waiting on its shards is hedged to a rebuild from the other agent's shards and answered
 * from there with the stored bytes (one answer used; the hung read's buffers come back once the agent runs again),
 * and later reads go around the stopped agent. When the other agent holds too few shards to rebuild, nothing is
 * hedged: the read waits.
 */
class EcStoppedAgentTest {

    /** The stopped agent's shards: with real block sizes the small fixture is all in shard 0; ten others rebuild it. */
    private static final List<Integer> REBUILDABLE = List.of(0, 1, 2, 3);
    /** Five shards: the other agent's nine are too few to rebuild from. */
    private static final List<Integer> NOT_REBUILDABLE = List.of(0, 1, 2, 3, 4);
    /** The HTTP fallback of a volume server that does not hold the EC volume (the master lists none of it). */
    private static final NeedleSource NO_SUCH_VOLUME = new NeedleSource() {
        @Override
        public Future<NeedleStat> stat(FileId fid) {
            return Future.failedFuture(ReadFailure.unavailable("no volume server lists volume 1", null));
        }

        @Override
        public Future<NeedleContent> read(FileId fid) {
            return Future.failedFuture(ReadFailure.unavailable("no volume server lists volume 1", null));
        }
    };

    @TempDir
    Path tmp;

    private final List<AutoCloseable> open = new ArrayList<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    /** The agent processes a test may stop, and the first of them. */
    private final List<HostProcess> stoppables = new ArrayList<>();
    private HostProcess stoppable;
    private RegisteredBufferPool pool;
    private ResilientNeedleSource source;
    private ConnectionManagerVerticle manager;
    private ReadPathHarness.SidecarSide side;

    @AfterEach
    void closeAll() throws Exception {
        for (HostProcess agent : stoppables) {
            agent.stop(false);
        }
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    @Test
    void aReadWaitingOnAStoppedAgentIsAnsweredByARebuildFromTheOtherShards() throws Exception {
        List<Map.Entry<FileId, byte[]>> needles = start(REBUILDABLE, Duration.ofSeconds(4));
        needles.forEach(this::readsRight); // the locations cached, every agent's gets timed
        stoppable.stop(true);
        for (Map.Entry<FileId, byte[]> needle : needles) {
            readsRight(needle);
        }
        assertTrue(counter("seaweedfs.rdma.hedges.won") >= 1, "a read waiting on the stopped agent was hedged");
        assertEquals(counter("seaweedfs.rdma.hedges.started"), counter("seaweedfs.rdma.hedges.started", "source",
                "ec-rebuild"), "every hedge was a rebuild (no other source is configured)");
        assertEquals(0.0, counter("seaweedfs.rdma.reads.past.deadline"));
        assertTrue(pool.inUse() > 0, "the hedged reads' gets to the stopped agent are still out");
        stoppable.stop(false);
        until("the late gets landed and their buffers came back", () -> pool.inUse() == 0);
    }

    /**
     * A volume server that does not hold the EC volume (the master lists none of it) is the only other source while the
     * stopped agent is not yet found late: reads whose locations are not cached look them up first, so their gets to
     * the stopped agent start after their hedges are armed, and a hedge due then goes to the volume server and fails.
     * Each read is still answered by a rebuild once the agent is late, within its deadline.
     */
    @Test
    void aHedgeThatFailsEarlyLeavesTheReadToTheRebuildOnceTheAgentIsLate() throws Exception {
        List<Map.Entry<FileId, byte[]>> needles = start(REBUILDABLE, Duration.ofSeconds(4), NO_SUCH_VOLUME);
        int warm = Math.max(1, needles.size() - 4); // the rest stay unread: not cached
        needles.subList(0, warm).forEach(this::readsRight);
        stoppable.stop(true);
        for (Map.Entry<FileId, byte[]> needle : needles.subList(warm, needles.size())) {
            readsRight(needle);
        }
        assertTrue(counter("seaweedfs.rdma.hedges.won", "source", "ec-rebuild") >= 1,
                "a hedge rebuilt around the stopped agent");
        assertEquals(0.0, counter("seaweedfs.rdma.reads.past.deadline"));
        stoppable.stop(false);
        until("the late gets landed and their buffers came back", () -> pool.inUse() == 0);
    }

    /**
     * Two agents stopped, one holding the needle's shard and one holding two of the shards a rebuild reads first: the
     * read's first hedge, a rebuild around the agent it waits on, reads from the other stopped agent and stalls too.
     * A later look goes around both, and the read is answered by a rebuild from the shards of the agent that runs.
     */
    @Test
    void aRebuildHedgeThatStallsOnAnotherStoppedAgentIsFollowedByOneAroundBoth() throws Exception {
        List<Map.Entry<FileId, byte[]>> needles = startGroups(List.of(List.of(0, 1), List.of(2, 3)),
                Duration.ofSeconds(6), null, Duration.ofHours(1), false);
        needles.forEach(this::readsRight);
        for (HostProcess agent : stoppables) {
            agent.stop(true);
        }
        readsRight(needles.get(0));
        assertTrue(counter("seaweedfs.rdma.hedges.started", "source", "ec-rebuild") >= 2,
                "the first rebuild stalled on the second stopped agent and was followed by another");
        assertEquals(1.0, counter("seaweedfs.rdma.hedges.won", "source", "ec-rebuild"));
        assertEquals(0.0, counter("seaweedfs.rdma.reads.past.deadline"));
        for (HostProcess agent : stoppables) {
            agent.stop(false);
        }
        until("the late gets landed and their buffers came back", () -> pool.inUse() == 0);
    }

    /**
     * The moment an agent stops, another may look stalled too (busy, or here stopped for a while): a read's first
     * rebuild can go around that other agent while the read waits on the stopped one. Here the read looks its needle
     * up at an agent stopped then (its first rebuild goes around it), which runs again while the agent holding the
     * needle's shard stays stopped: the read and its first rebuild both wait on that one. The two agents together are
     * more than the others can rebuild around, the stopped one alone is not: a later look goes around it, and the read
     * is answered within its deadline.
     */
    @Test
    void aReadWhoseFirstRebuildWentAroundAnotherAgentIsRebuiltAroundTheOneItWaitsOn() throws Exception {
        // Listed first, so reads look needles up there: shards 4-6. Then the needle's shard 0 and 1-3; here 7-13.
        List<Map.Entry<FileId, byte[]>> needles = startGroups(List.of(List.of(4, 5, 6), List.of(0, 1, 2, 3)),
                Duration.ofSeconds(8), null, Duration.ofHours(1), true);
        HostProcess lookedUpAt = stoppables.get(0);
        HostProcess holding = stoppables.get(1);
        Map.Entry<FileId, byte[]> unread = needles.get(0); // not cached: looked up at the first agent
        needles.subList(1, needles.size()).forEach(this::readsRight);
        lookedUpAt.stop(true);
        holding.stop(true);
        Future<byte[]> waiting = readAsync(unread.getKey());
        until("the first rebuild went around the agent the read looks its needle up at",
                () -> counter("seaweedfs.rdma.hedges.started", "source", "ec-rebuild") >= 1);
        lookedUpAt.stop(false); // answers the lookup: the read waits on the holding agent, as its first rebuild does
        assertArrayEquals(unread.getValue(), await(waiting), unread.getKey().toString());
        assertTrue(counter("seaweedfs.rdma.hedges.started", "source", "ec-rebuild") >= 2,
                "a second rebuild went around the agent the read waited on");
        assertEquals(1.0, counter("seaweedfs.rdma.hedges.won", "source", "ec-rebuild"));
        assertEquals(0.0, counter("seaweedfs.rdma.reads.past.deadline"));
        holding.stop(false);
        until("the late gets landed and their buffers came back", () -> pool.inUse() == 0);
    }

    /**
     * The pings declare the stopped agent down (here well before its gets are late): it no longer lists the volume, so
     * it is not found late, yet a read started before still waits on its shard gets (their lane drains before it
     * closes). Its hedge goes to a rebuild around the down agent, not only to the volume server that cannot serve it.
     */
    @Test
    void aReadWaitingOnAnAgentThePingsDeclaredDownIsRebuiltAroundIt() throws Exception {
        List<Map.Entry<FileId, byte[]>> needles = start(REBUILDABLE, Duration.ofSeconds(4), NO_SUCH_VOLUME,
                Duration.ofMillis(400));
        needles.forEach(this::readsRight);
        AgentPeer onTime = manager.routeFor(1).peer();
        String stopped = manager.peers().stream().filter(p -> p != onTime).findFirst().orElseThrow().name();
        stoppable.stop(true);
        Map.Entry<FileId, byte[]> needle = needles.get(0);
        Future<byte[]> waiting = readAsync(needle.getKey());
        until("the stopped agent declared down", () -> !manager.peer(stopped).isUp());
        assertArrayEquals(needle.getValue(), await(waiting), needle.getKey().toString());
        assertTrue(counter("seaweedfs.rdma.hedges.won", "source", "ec-rebuild") >= 1,
                "a hedge rebuilt around the down agent");
        assertEquals(0.0, counter("seaweedfs.rdma.reads.past.deadline"));
        stoppable.stop(false);
        until("the late gets landed and their buffers came back", () -> pool.inUse() == 0);
    }

    /**
     * The drill's shape: the stopped agent is the one reads look needles up at, clients keep reading while it stays
     * stopped past a read's deadline, and the pings declare it down meanwhile. Every read is answered over RDMA,
     * none at its deadline: whatever the stopped agent's state when a read starts, its shards are rebuilt around it.
     */
    @Test
    void clientsReadingThroughAStopOfTheAgentTheyLookUpAtAreAllAnswered() throws Exception {
        List<Map.Entry<FileId, byte[]>> needles = start(REBUILDABLE, Duration.ofSeconds(2), null,
                Duration.ofSeconds(2), true);
        needles.forEach(this::readsRight);
        AgentPeer stopped = manager.routeFor(1).peer();
        stoppable.stop(true);
        AtomicInteger afterDown = new AtomicInteger();
        // Until the pings declared the agent down and every needle was read once more after that.
        BooleanSupplier more = () -> (stopped.isUp() ? 0 : afterDown.incrementAndGet()) <= needles.size();
        List<Future<Void>> clients = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            clients.add(readWhile(needles, 7 * c, more));
        }
        await(Future.all(clients));
        assertEquals(0.0, counter("seaweedfs.rdma.reads.past.deadline"));
        stoppable.stop(false);
        until("the late gets landed and their buffers came back", () -> pool.inUse() == 0);
    }

    /** Reads the needles in turn from {@code first} on, each checked, while {@code more} says so. */
    private Future<Void> readWhile(List<Map.Entry<FileId, byte[]>> needles, int first, BooleanSupplier more) {
        if (!more.getAsBoolean()) {
            return Future.succeededFuture();
        }
        Map.Entry<FileId, byte[]> needle = needles.get(first % needles.size());
        return readAsync(needle.getKey()).compose(bytes -> {
            assertArrayEquals(needle.getValue(), bytes, needle.getKey().toString());
            return readWhile(needles, first + 1, more);
        });
    }

    @Test
    void withTooFewShardsElsewhereAReadWaitingOnAStoppedAgentIsNotHedged() throws Exception {
        List<Map.Entry<FileId, byte[]>> needles = start(NOT_REBUILDABLE, Duration.ofSeconds(2));
        needles.forEach(this::readsRight);
        stoppable.stop(true);
        ReadFailure timeout = assertThrows(ReadFailure.class, () -> read(needles.get(0).getKey()));
        assertEquals(ReadFailure.Kind.TIMEOUT, timeout.kind(), "no path answered: it waited to its deadline");
        assertNull(registry.find("seaweedfs.rdma.hedges.started").counter(), "no rebuild was possible: no hedge");
        stoppable.stop(false);
        readsRight(needles.get(0));
        until("the late gets landed and their buffers came back", () -> pool.inUse() == 0);
    }

    /**
     * The EC volume's shards in {@code stopped} on an agent process, the rest on an agent of this JVM (listed first,
     * so reads look needles up there), and the resilient read path over both, with no fallback; returns the stored
     * needles.
     */
    private List<Map.Entry<FileId, byte[]>> start(List<Integer> stopped, Duration readTimeout) throws Exception {
        return start(stopped, readTimeout, null);
    }

    /** As above, with {@code http} (when not null) as the HTTP fallback. */
    private List<Map.Entry<FileId, byte[]>> start(List<Integer> stopped, Duration readTimeout, NeedleSource http)
            throws Exception {
        return start(stopped, readTimeout, http, Duration.ofHours(1));
    }

    /** As above, pinging every agent every {@code ping} (one that has not answered within half of it is down). */
    private List<Map.Entry<FileId, byte[]>> start(List<Integer> stopped, Duration readTimeout, NeedleSource http,
                                                  Duration ping) throws Exception {
        return start(stopped, readTimeout, http, ping, false);
    }

    /**
     * As above; {@code stoppedFirst}: the stoppable agent is listed first, so reads look needles up there and wait on
     * its control channel too.
     */
    private List<Map.Entry<FileId, byte[]>> start(List<Integer> stopped, Duration readTimeout, NeedleSource http,
                                                  Duration ping, boolean stoppedFirst) throws Exception {
        return startGroups(List.of(stopped), readTimeout, http, ping, stoppedFirst);
    }

    /** As above, an agent process for each group of shards in {@code stoppedGroups} ({@link #stoppable}: the first). */
    private List<Map.Entry<FileId, byte[]>> startGroups(List<List<Integer>> stoppedGroups, Duration readTimeout,
                                                        NeedleSource http, Duration ping, boolean stoppedFirst)
            throws Exception {
        EcWriter.Result ec =
                EcTestVolumes.encodeFixtureRealBlocks(Files.createDirectories(tmp.resolve("src")), "", 10, 4);
        Path[] dirs = EcShardSplit.over(ec.files().ecx().getParent(), 14, tmp, stoppedGroups.size() + 1, id -> {
            for (int g = 0; g < stoppedGroups.size(); g++) {
                if (stoppedGroups.get(g).contains(id)) {
                    return g + 1;
                }
            }
            return 0;
        });
        AgentHarness onTime = new AgentHarness(dirs[0], "tcp", AgentSetup.DEFAULTS);
        open.add(onTime);
        List<String> stoppableAgents = new ArrayList<>();
        for (int g = 0; g < stoppedGroups.size(); g++) {
            HostProcess agent = HostProcess.serve(tmp, "stoppable-" + g, "roles: [agent]\n"
                    + "http: {host: 127.0.0.1, port: 0}\n"
                    + "agent: {listen: '127.0.0.1:0', volumeDirs: ['" + dirs[g + 1] + "']}\n"
                    + "ucx: {tls: [tcp]}\n");
            open.add(agent);
            stoppables.add(agent);
        }
        stoppable = stoppables.get(0);
        for (HostProcess agent : stoppables) {
            stoppableAgents.add("'127.0.0.1:" + agent.awaitAgentPort() + "'");
        }
        side = new ReadPathHarness.SidecarSide("tcp", new RegisteredBufferPool.Settings(64 << 10, 128, 1 << 20, 16));
        open.add(side);
        pool = side.pool;
        // The pings are far off: only the hedge can help a read waiting on the stopped agent.
        List<String> agents = new ArrayList<>(stoppableAgents);
        agents.add(stoppedFirst ? agents.size() : 0, "'127.0.0.1:" + onTime.port() + "'");
        SidecarConfig config = ConfigLoader.parse("roles: [sidecar]\nsidecar:\n"
                + "  agents: [" + String.join(", ", agents) + "]\n"
                + "  readTimeout: " + readTimeout.toMillis() + "ms\n  ping: {interval: " + ping.toMillis() + "ms}\n"
                + (http == null ? "  fallback: []\n" : "  fallback: [http]\n"),
                "test", Map.of()).sidecar();
        manager = new ConnectionManagerVerticle(config,
                ConnectionManagerVerticle.ucxConnector(side.vertx, side.ucx, config, "test-sidecar"), null,
                new ReadMeters(registry));
        await(side.vertx.deployVerticle(manager));
        EcShardReader shards = new EcShardReader(EcShardHolders.of(manager::volumesOf, vid -> { }), pool,
                EcRebuild.RDMA, readTimeout);
        NeedleReader reader = new NeedleReader(side.vertx, manager, pool,
                new ReadPathOptions(readTimeout.toMillis(), config.maxNeedleBytes()), shards);
        source = new ResilientNeedleSource(side.vertx, manager, reader, null, http, ResilienceSettings.from(config),
                registry);
        source.ecShards(shards);
        until("every agent lists the EC volume", () -> manager.volumesOf(1).size() == agents.size()
                && manager.routeFor(1).peer().name().equals(config.agents().get(0).toString()));
        return new ArrayList<>(StoredNeedles.of(Fixtures.volumes().resolve("1.dat"), 1).values());
    }

    private void readsRight(Map.Entry<FileId, byte[]> needle) {
        assertArrayEquals(needle.getValue(), read(needle.getKey()), needle.getKey().toString());
    }

    /** The needle's bytes over RDMA, read on an event loop of the sidecar's. */
    private byte[] read(FileId fid) {
        return await(readAsync(fid));
    }

    /** As {@link #read}, not waited for. */
    private Future<byte[]> readAsync(FileId fid) {
        Promise<byte[]> bytes = Promise.promise();
        side.vertx.getOrCreateContext().runOnContext(v -> source.read(fid).onComplete(ar -> {
            if (ar.failed()) {
                bytes.fail(ar.cause());
                return;
            }
            NeedleContent c = ar.result();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            c.chunks().forEach(b -> out.writeBytes(b.getBytes()));
            String from = c.stat().source();
            c.release();
            if ("rdma".equals(from)) {
                bytes.complete(out.toByteArray());
            } else {
                bytes.fail(new AssertionError(fid + " served by " + from));
            }
        }));
        return bytes.future();
    }

    private double counter(String name, String... tags) {
        return registry.find(name).tags(tags).counters().stream().mapToDouble(c -> c.count()).sum();
    }
}
