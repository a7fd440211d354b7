package org.seaweedfs.rdma.sidecar.resilience;

import org.seaweedfs.rdma.testing.AgentSetup;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.ReadPathStatus;
import org.seaweedfs.rdma.sidecar.StubVolumeServer;
import org.seaweedfs.rdma.sidecar.connection.AgentPeer;
import org.seaweedfs.rdma.sidecar.connection.ConnectionManagerVerticle;
import org.seaweedfs.rdma.sidecar.connection.PeerState;
import org.seaweedfs.rdma.sidecar.fallback.VolumeServerSource;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.sidecar.read.ReadPathOptions;
import org.seaweedfs.rdma.sidecar.read.ReadThroughSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.seaweedfs.rdma.testing.Await.await;
import static org.seaweedfs.rdma.testing.Await.until;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.config.SidecarConfig;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.Fixtures;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.SidecarSetup;

/**
 * The whole degraded read path with a real agent over UCX loopback: the connection manager, NeedleReader,
 * ReadThroughSource and the HTTP fallback (stand-in volume server over the same fixture files) behind
 * ResilientNeedleSource. Faults: the agent killed under load and restarted; the agent hung (its worker threads
 * blocked, its endpoint still open).
 */
class ResilientReadPathAgentTest {

    private static final String TLS = "tcp";
    private static final RegisteredBufferPool.Settings POOL =
            new RegisteredBufferPool.Settings(64 << 10, 64, 1 << 20, 16);
    /** Fixture needles with their known CRCs (fixtures README). */
    private static final Map<FileId, String> KNOWN = Map.of(
            FileId.parse("2,0306bfd555"), "4af853fb",
            FileId.parse("2,08578634e1"), "043193f7",
            FileId.parse("1,01bb51ad02"), "0ea166e0",
            FileId.parse("1,02dfabcb70"), "7dd254fd");

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<JsonObject> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /** The breaker's open duration; long enough that only the reconnection can let reads back to RDMA before it. */
    private static final Duration LONG_OPEN = Duration.ofMinutes(10);
    /** The ping interval of the test whose agent hangs: a pong not back within 2 s marks it down. */
    private static final Duration HANG_PINGS = Duration.ofSeconds(4);

    private static SidecarConfig config(int agentPort, Duration openDuration, Duration ping) {
        return SidecarSetup.config(SidecarSetup.agents(List.of(new HostPort("127.0.0.1", agentPort))),
                "maxInFlightReads: 64", SidecarSetup.SMALL_POOL, "readTimeout: 3s",
                SidecarSetup.duration("ping.interval", ping),
                SidecarSetup.duration("breaker.openDuration", openDuration));
    }

    private AgentHarness agent(int port) {
        return new AgentHarness(dir, TLS, AgentSetup.config("listen: '127.0.0.1:" + port + "'"));
    }

    /** The sidecar's read path against the agent at {@code port}. */
    private final class Sidecar {
        final ReadPathHarness.SidecarSide side = new ReadPathHarness.SidecarSide(TLS, POOL);
        final ConnectionManagerVerticle manager;
        final ResilientNeedleSource source;
        final StubVolumeServer volumeServer;
        final String agentName;

        Sidecar(int agentPort) {
            this(agentPort, Duration.ofMillis(300));
        }

        /** Pings far apart: over UCX's TCP transport a closed agent is seen by its channel, a late pong never. */
        Sidecar(int agentPort, Duration openDuration) {
            this(agentPort, openDuration, Duration.ofSeconds(30));
        }

        Sidecar(int agentPort, Duration openDuration, Duration ping) {
            this(agentPort, openDuration, ping, dir);
        }

        /** @param volumeServerDir the volumes the stand-in volume server serves (a replica, or the agent's own) */
        Sidecar(int agentPort, Duration openDuration, Duration ping, Path volumeServerDir) {
            open.add(side);
            SidecarConfig config = config(agentPort, openDuration, ping);
            agentName = config.agents().get(0).toString();
            side.vertx.eventBus().<JsonObject>consumer(ConnectionManagerVerticle.PEER_STATE_ADDRESS,
                    m -> events.add(m.body()));
            manager = new ConnectionManagerVerticle(config,
                    ConnectionManagerVerticle.ucxConnector(side.vertx, side.ucx, config, "test-sidecar"), null,
                    new ReadMeters(registry));
            await(side.vertx.deployVerticle(manager));
            volumeServer = await(new StubVolumeServer(side.vertx).start(volumeServerDir));
            open.add(() -> await(volumeServer.stop()));
            ReadPathOptions options = new ReadPathOptions(config.readTimeout().toMillis(), config.maxNeedleBytes());
            source = new ResilientNeedleSource(side.vertx, manager, side.reader(manager, options),
                    new ReadThroughSource(side.vertx, manager, options),
                    new VolumeServerSource(VolumeServerSource.newClient(side.vertx, 8), null, config.maxNeedleBytes(),
                            Duration.ofSeconds(20)),
                    ResilienceSettings.from(config), registry);
        }

        AgentPeer peer() {
            return manager.peer(agentName);
        }

        CircuitBreaker breaker() {
            return source.breaker(agentName);
        }

        /** The breaker's state right after each down -> up transition (listeners run in the order added). */
        List<CircuitBreaker.State> breakerStatesOnReconnect() {
            List<CircuitBreaker.State> states = new CopyOnWriteArrayList<>();
            manager.addListener((peer, previous, next, reason) -> {
                if (previous == PeerState.DOWN && next == PeerState.UP) {
                    states.add(breaker().getState());
                }
            });
            return states;
        }

        /** One read of a fixture needle, checked against its CRC; the path that served it. */
        String readSource(FileId fid) {
            NeedleContent c = await(source.read(fid, volumeServer.url()));
            try {
                assertEquals(KNOWN.get(fid), c.stat().etag(), fid.toString());
                return c.stat().source();
            } finally {
                c.release();
            }
        }
    }

    /** Concurrent read loops on the sidecar's event loops, verifying every answer against the known CRCs. */
    private static final class Load {
        final Map<String, AtomicInteger> bySource = new ConcurrentHashMap<>();
        final List<String> errors = new CopyOnWriteArrayList<>();
        final AtomicBoolean running = new AtomicBoolean(true);
        final List<Future<Void>> loops = new ArrayList<>();

        Load(Vertx vertx, ResilientNeedleSource source, String hint, int concurrency) {
            List<FileId> fids = List.copyOf(KNOWN.keySet());
            for (int i = 0; i < concurrency; i++) {
                Promise<Void> done = Promise.promise();
                int start = i;
                vertx.getOrCreateContext().runOnContext(v -> next(source, hint, fids, start, done));
                loops.add(done.future());
            }
        }

        private void next(ResilientNeedleSource source, String hint, List<FileId> fids, int i, Promise<Void> done) {
            if (!running.get()) {
                done.complete();
                return;
            }
            FileId fid = fids.get(i % fids.size());
            source.read(fid, hint).onComplete(ar -> {
                if (ar.succeeded()) {
                    NeedleContent c = ar.result();
                    if (!KNOWN.get(fid).equals(c.stat().etag())) {
                        errors.add(fid + " served with crc " + c.stat().etag());
                    }
                    bySource.computeIfAbsent(c.stat().source(), k -> new AtomicInteger()).incrementAndGet();
                    c.release();
                } else {
                    errors.add(fid + ": " + ar.cause());
                }
                next(source, hint, fids, i + 1, done);
            });
        }

        int served(String source) {
            AtomicInteger n = bySource.get(source);
            return n == null ? 0 : n.get();
        }

        void stop() {
            running.set(false);
            await(Future.all(loops));
        }
    }

    /**
     * The agent again on its old port. The killed agent closed its connections first, so the port sits in
     * TIME_WAIT (up to a minute on Linux); UCX 1.13's listener rebinds at once only with UCX_TCP_CM_REUSEADDR=y in
     * the environment (surefire and run.sh set it). Without it, retry until the port is free, as an operator would.
     */
    private AgentHarness restart(int port) {
        return until("the agent listening on port " + port + " again", () -> {
            try {
                return agent(port);
            } catch (RuntimeException e) {
                return null;
            }
        }, Objects::nonNull, Duration.ofSeconds(120));
    }

    private boolean sawEvent(String state, String reasonPrefix) {
        return events.stream().anyMatch(e -> state.equals(e.getString("state"))
                && e.getString("reason").startsWith(reasonPrefix));
    }

    @Test
    void anAgentKilledUnderLoadOpensItsBreakerTheFallbackServesAndItClosesWhenTheAgentReturns() throws Exception {
        Fixtures.copyDir("volumes", dir);
        AgentHarness agent = agent(0);
        int port = agent.port();
        Sidecar sidecar = new Sidecar(port);
        until("agent up", () -> sidecar.peer().isUp());

        Load load = new Load(sidecar.side.vertx, sidecar.source, sidecar.volumeServer.url(), 4);
        until("RDMA serves", () -> load.served("rdma") >= 20);

        agent.close();
        until("agent down", () -> sidecar.peer().state() == PeerState.DOWN);
        until("breaker open", () -> sidecar.breaker().getState() == CircuitBreaker.State.OPEN);
        int httpBefore = load.served("http");
        until("HTTP fallback serves", () -> load.served("http") >= httpBefore + 20);

        open.add(restart(port));
        until("agent up again", () -> sidecar.peer().isUp());
        until("breaker closed", () -> sidecar.breaker().getState() == CircuitBreaker.State.CLOSED);
        int rdmaBefore = load.served("rdma");
        until("RDMA serves again", () -> load.served("rdma") >= rdmaBefore + 20);
        load.stop();

        assertEquals(List.of(), load.errors, "a fault loses nothing and serves nothing corrupt");
        assertTrue(sawEvent("down", ""), events.toString());
        assertTrue(events.stream().filter(e -> "up".equals(e.getString("state"))).count() >= 2, events.toString());
        assertEquals(ReadPathStatus.Health.HEALTHY, sidecar.source.health());
    }

    /**
     * The agent killed and restarted on its port: the reconnection's handshake lets reads back through the breaker at
     * once (half-open, whatever is left of openDuration), so the first read after it goes over RDMA.
     */
    @Test
    void aReconnectedAgentServesTheFirstReadOverRdmaBeforeTheOpenDurationEnds() throws Exception {
        Fixtures.copyDir("volumes", dir);
        AgentHarness agent = agent(0);
        int port = agent.port();
        Sidecar sidecar = new Sidecar(port, LONG_OPEN);
        List<CircuitBreaker.State> onReconnect = sidecar.breakerStatesOnReconnect();
        until("agent up", () -> sidecar.peer().isUp());
        FileId fid = FileId.parse("1,01bb51ad02");
        assertEquals("rdma", sidecar.readSource(fid));

        agent.close();
        until("agent down", () -> sidecar.peer().state() == PeerState.DOWN);
        assertEquals(CircuitBreaker.State.OPEN, sidecar.breaker().getState(), "a down agent opens its breaker");
        assertEquals("http", sidecar.readSource(fid), "down: the HTTP fallback serves");

        open.add(restart(port));
        until("agent up again", () -> sidecar.peer().isUp());
        until("the reconnection's listeners ran", () -> !onReconnect.isEmpty());
        assertEquals(List.of(CircuitBreaker.State.HALF_OPEN), List.copyOf(onReconnect),
                "the handshake turned the breaker half-open");
        assertEquals("rdma", sidecar.readSource(fid), "the first read after the reconnection");
        assertEquals("rdma", sidecar.readSource(FileId.parse("2,0306bfd555")));
        assertEquals("rdma", sidecar.readSource(fid));
        assertEquals(CircuitBreaker.State.CLOSED, sidecar.breaker().getState(), "its three half-open trials closed it");
        assertEquals(ReadPathStatus.Health.HEALTHY, sidecar.source.health());
    }

    @Test
    void anAgentThatHangsIsDetectedByThePingsWithinTheTimeoutAndServesRdmaOnceItAnswersAgain() throws Exception {
        Fixtures.copyDir("volumes", dir);
        AgentHarness agent = agent(0);
        open.add(agent);
        // The pings find the hang; a pong is late only on a host stalled for seconds.
        Sidecar sidecar = new Sidecar(agent.port(), LONG_OPEN, HANG_PINGS);
        List<CircuitBreaker.State> onReconnect = sidecar.breakerStatesOnReconnect();
        until("agent up", () -> sidecar.peer().isUp());

        // Hang the agent: occupy every worker thread of its Vert.x (the agent verticle runs on that pool), so it
        // stops answering while its UCX endpoint and listener stay open.
        int workers = 20; // VertxOptions.DEFAULT_WORKER_POOL_SIZE
        CountDownLatch started = new CountDownLatch(workers);
        CountDownLatch release = new CountDownLatch(1);
        for (int i = 0; i < workers; i++) {
            agent.vertx.getOrCreateContext().executeBlocking(() -> {
                started.countDown();
                release.await();
                return null;
            }, false);
        }
        try {
            assertTrue(started.await(30, TimeUnit.SECONDS), "agent workers blocked");
            long pongTimeout = new SidecarConfig.Ping(HANG_PINGS).timeout().toMillis();
            until("hang detected", () -> sawEvent("down", "no pong within " + pongTimeout + " ms"));
            assertEquals(PeerState.DOWN, sidecar.peer().state());
            assertEquals(CircuitBreaker.State.OPEN, sidecar.breaker().getState(), "a down agent opens its breaker");
            // Reads still work: the HTTP fallback (read-through needs the agent, which is not answering).
            NeedleContent c = await(sidecar.source.read(FileId.parse("2,0306bfd555"), sidecar.volumeServer.url()));
            assertEquals("http", c.stat().source());
            c.release();
        } finally {
            release.countDown();
        }
        until("agent up after it resumes", () -> sidecar.peer().isUp());
        until("the reconnection's listeners ran", () -> !onReconnect.isEmpty());
        assertEquals(List.of(CircuitBreaker.State.HALF_OPEN), List.copyOf(onReconnect),
                "the handshake turned the breaker half-open");
        assertEquals("rdma", sidecar.readSource(FileId.parse("2,08578634e1")), "the first read after it answers again");
    }

    /** Volume 2's needles before a cut at {@link #CUT} (they start at .dat offsets 8 and 80,144: fixture's .idx). */
    private static final List<FileId> KEPT = List.of(FileId.parse("2,0306bfd555"), FileId.parse("2,08578634e1"));
    /** Volume 2's last three live needles, at .dat offsets 428,864, 792,856 and 913,216: all past {@link #CUT}. */
    private static final List<FileId> CUT_AWAY = List.of(FileId.parse("2,159d9a9497"), FileId.parse("2,273b6306d2"),
            FileId.parse("2,30436c9573"));
    private static final long CUT = 400_000;
    /** The ETags (CRCs) of {@link #CUT_AWAY} as read over RDMA before the cut. */
    private final Map<FileId, String> cutEtags = new ConcurrentHashMap<>();

    /**
     * A served .dat truncated in place (as SeaweedFS does to a torn tail, or an operator). Until the agent notices (a
     * pass after the SIGBUS guard replaced a page, or a few passes after the cut) its mapping still covers the cut
     * region and its SIGBUS guard makes those pages read as zeros; then it reopens the volume without the cut needles.
     * Either way the cut needles are never served (zeros never pass as a needle) and fail cleanly, the needles before
     * the cut go on being served over RDMA, and no read is held against the agent's breaker, however many.
     */
    @Test
    void needlesCutFromAServedDatFailCleanlyWithoutOpeningTheAgentsBreaker() throws Exception {
        Fixtures.copyDir("volumes", dir);
        AgentHarness agent = agent(0);
        open.add(agent);
        Sidecar sidecar = truncatedUnderTheSidecar(agent);
        List<Throwable> heldAgainstTheAgent = heldAgainstTheAgent(sidecar);

        for (int round = 0; round < 5; round++) { // 15 reads of cut needles: over the breaker's minimum of calls
            readsAfterTheCut(sidecar);
        }
        assertEquals(List.of(), heldAgainstTheAgent, "no read was held against the agent");
        assertEquals(CircuitBreaker.State.CLOSED, sidecar.breaker().getState());
    }

    /**
     * The same cut with the volume server holding its own whole copy (a replica): the
     * agent reopens the volume under a new epoch whose needle map stops at the first .idx entry past the cut, so the
     * cut needles are missing from it but still listed by the .idx. They exist: each read is served by the volume
     * server, none answers NOT_FOUND. Once the bytes are written back in place the agent applies the waiting entries
     * and serves the cut needles over RDMA again; the kept ones are served over RDMA throughout.
     */
    @Test
    void needlesCutFromADatAreServedByTheirReplicaAfterTheReopenAndOverRdmaOnceWrittenBack() throws Exception {
        Path replica = Files.createDirectories(dir.resolve("replica"));
        Fixtures.copyDir("volumes", replica);
        Fixtures.copyDir("volumes", dir);
        byte[] whole = Files.readAllBytes(dir.resolve("2.dat"));
        AgentHarness agent = agent(0);
        open.add(agent);
        Sidecar sidecar = truncatedUnderTheSidecar(agent, replica);
        long epoch = sidecar.manager.routeFor(2).volume().epoch();
        List<Throwable> heldAgainstTheAgent = heldAgainstTheAgent(sidecar);

        boolean reopened;
        do { // the last round runs once the sidecar sees the new epoch
            reopened = sidecar.manager.routeFor(2).volume().epoch() != epoch;
            for (FileId fid : CUT_AWAY) {
                assertEquals("http", readCut(sidecar, fid), fid + ": served by the replica");
            }
            for (FileId fid : KEPT) {
                assertEquals("rdma", sidecar.readSource(fid), fid.toString());
            }
        } while (!reopened);

        try (FileChannel ch = FileChannel.open(dir.resolve("2.dat"), StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(whole), 0); // in place, the same inode, as an operator restores it
        }
        for (FileId fid : CUT_AWAY) {
            until(fid + " over RDMA again", () -> readCut(sidecar, fid), "rdma"::equals, Duration.ofSeconds(60));
        }
        assertEquals(List.of(), heldAgainstTheAgent, "no read was held against the agent");
        assertEquals(CircuitBreaker.State.CLOSED, sidecar.breaker().getState());
    }

    /** A cut needle read and checked against its CRC (anything else fails the test); the path that served it. */
    private String readCut(Sidecar sidecar, FileId fid) {
        AsyncResult<NeedleContent> ar = await(sidecar.source.read(fid, sidecar.volumeServer.url())
                .transform(r -> Future.succeededFuture(r)));
        if (ar.failed()) {
            fail(fid + " failed: " + ar.cause());
        }
        NeedleContent c = ar.result();
        try {
            assertEquals(cutEtags.get(fid), c.stat().etag(), fid + ": the bytes read over RDMA before the cut");
            return c.stat().source();
        } finally {
            c.release();
        }
    }

    /**
     * A sidecar that read every needle of volume 2 over RDMA (their locations are cached), then 2.dat cut at
     * {@link #CUT} in place. Pings get a generous timeout: a stall of the loaded machine must not pass for the cut's.
     */
    private Sidecar truncatedUnderTheSidecar(AgentHarness agent) throws Exception {
        return truncatedUnderTheSidecar(agent, dir);
    }

    private Sidecar truncatedUnderTheSidecar(AgentHarness agent, Path volumeServerDir) throws Exception {
        Sidecar sidecar = new Sidecar(agent.port(), LONG_OPEN, Duration.ofSeconds(20), volumeServerDir);
        until("agent up", () -> sidecar.peer().isUp());
        for (FileId fid : CUT_AWAY) {
            NeedleContent c = await(sidecar.source.read(fid, sidecar.volumeServer.url()));
            assertEquals("rdma", c.stat().source(), fid.toString());
            cutEtags.put(fid, c.stat().etag());
            c.release();
        }
        KEPT.forEach(fid -> assertEquals("rdma", sidecar.readSource(fid)));
        try (FileChannel ch = FileChannel.open(dir.resolve("2.dat"), StandardOpenOption.WRITE)) {
            ch.truncate(CUT);
        }
        return sidecar;
    }

    /** The failures the agent's breaker records from now on. */
    private static List<Throwable> heldAgainstTheAgent(Sidecar sidecar) {
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        sidecar.breaker().getEventPublisher().onError(e -> failures.add(e.getThrowable()));
        return failures;
    }

    /**
     * Each cut needle once: never served; NOT_FOUND, or UNAVAILABLE when neither the agent nor the stand-in volume
     * server can tell. Then each kept needle, served over RDMA.
     */
    private static void readsAfterTheCut(Sidecar sidecar) {
        for (FileId fid : CUT_AWAY) {
            ReadFailure failure = (ReadFailure) awaitFailure(sidecar.source.read(fid, sidecar.volumeServer.url()));
            if (failure.kind() != ReadFailure.Kind.UNAVAILABLE) {
                assertEquals(ReadFailure.Kind.NOT_FOUND, failure.kind(), fid + ": " + failure);
            }
        }
        for (FileId fid : KEPT) {
            assertEquals("rdma", sidecar.readSource(fid), fid.toString());
        }
    }

    /** The failure a read ends with; a read served instead fails the test. */
    private static Throwable awaitFailure(Future<NeedleContent> read) {
        AsyncResult<NeedleContent> ar = await(read.transform(r -> Future.succeededFuture(r)));
        if (ar.succeeded()) {
            ar.result().release();
            fail("served " + ar.result().stat());
        }
        return ar.cause();
    }
}
