package org.seaweedfs.rdma.sidecar.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;
import static org.seaweedfs.rdma.testing.Await.until;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.config.Fallback;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.config.SidecarConfig;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.InMemoryNeedleSource;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ScriptedAgents;
import org.seaweedfs.rdma.sidecar.StubMaster;
import org.seaweedfs.rdma.sidecar.StubVolumeServer;
import org.seaweedfs.rdma.sidecar.connection.ConnectionManagerVerticle;
import org.seaweedfs.rdma.sidecar.fallback.MasterClient;
import org.seaweedfs.rdma.sidecar.fallback.VolumeServerSource;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.Fixtures;

/**
 * When a volume no agent serves is 404 (certain: every agent connected and none lists it, and the master, when set,
 * or the configured volume servers do not know it either) and when it stays 503 (an agent down, the master
 * unreachable, the sidecar starting), with scripted agents, a stand-in master and volume server.
 */
@ExtendWith(VertxExtension.class)
class UnknownVolumeTest {

    private static final HostPort A = HostPort.parse("10.0.0.1:18515");
    private static final HostPort B = HostPort.parse("10.0.0.2:18515");
    private static final FileId SERVED = FileId.parse("2,0306bfd555");
    private static final FileId UNKNOWN = FileId.parse("77,0102030405");

    private final ScriptedAgents agents = new ScriptedAgents();
    private final List<Runnable> stops = new ArrayList<>();
    private ConnectionManagerVerticle manager;

    @AfterEach
    void stop() {
        stops.forEach(Runnable::run);
    }

    private ResilientNeedleSource source(Vertx vertx, HostPort master, List<HostPort> volumeServers,
                                         List<Fallback> fallback, Duration readTimeout) {
        return source(vertx, ScriptedAgents.config(List.of(A), master, fallback), volumeServers, readTimeout,
                ReadClock.system());
    }

    /** @param readTimeout the reads' deadline, on {@code clock} */
    private ResilientNeedleSource source(Vertx vertx, SidecarConfig config, List<HostPort> volumeServers,
                                         Duration readTimeout, ReadClock clock) {
        HostPort master = config.master();
        List<Fallback> fallback = config.fallback();
        WebClient client = VolumeServerSource.newClient(vertx, 4);
        MasterClient masterClient = master == null ? null
                : new MasterClient(vertx, client, master, Duration.ofMinutes(1), Duration.ofSeconds(5));
        manager = new ConnectionManagerVerticle(config, agents, masterClient,
                new ReadMeters(new SimpleMeterRegistry()));
        String id = await(vertx.deployVerticle(manager));
        stops.add(() -> await(vertx.undeploy(id)));
        InMemoryNeedleSource memory = new InMemoryNeedleSource(vertx);
        memory.source("rdma");
        memory.put(SERVED, "bytes".getBytes(StandardCharsets.UTF_8), "f", "", 0, Map.of());
        ScriptedNeedleSource rdma = new ScriptedNeedleSource(memory).withReadTimeout(readTimeout);
        VolumeServerSource http = new VolumeServerSource(client, masterClient, volumeServers, 1 << 20,
                Duration.ofSeconds(5));
        return new ResilientNeedleSource(vertx, manager, rdma, null, http,
                new ResilienceSettings(config.breaker(), fallback),
                new SimpleMeterRegistry(), clock);
    }

    private ResilientNeedleSource connected(Vertx vertx, HostPort master, List<HostPort> volumeServers,
                                            List<Fallback> fallback) {
        agents.agent(A.toString()).serves(2L);
        ResilientNeedleSource source = source(vertx, master, volumeServers, fallback, Duration.ofSeconds(2));
        until("start-up over", () -> !source.starting());
        return source;
    }

    private static ReadFailure failure(Future<NeedleContent> read) {
        return assertThrows(ReadFailure.class, () -> await(read));
    }

    private StubMaster master(Vertx vertx) {
        StubMaster master = await(new StubMaster(vertx).start());
        stops.add(() -> await(master.stop()));
        return master;
    }

    private static HostPort at(int port) {
        return new HostPort("127.0.0.1", port);
    }

    @Test
    void everyAgentConnectedAndNoMasterIs404WithOrWithoutFallbacks(Vertx vertx) {
        for (List<Fallback> fallback : List.of(List.of(Fallback.HTTP), List.<Fallback>of())) {
            ResilientNeedleSource source = connected(vertx, null, List.of(), fallback);
            ReadFailure f = failure(source.read(UNKNOWN));
            assertEquals(ReadFailure.Kind.NOT_FOUND, f.kind(), f.getMessage());
            assertTrue(f.getMessage().contains("no agent serves volume 77"), f.getMessage());
            stop();
            stops.clear();
        }
    }

    @Test
    void theMastersNotFoundIs404AndItsFailureStays503(Vertx vertx) {
        StubMaster master = master(vertx);
        for (List<Fallback> fallback : List.of(List.of(Fallback.HTTP), List.<Fallback>of())) {
            ResilientNeedleSource source = connected(vertx, at(master.port()), List.of(), fallback);
            ReadFailure notFound = failure(source.read(UNKNOWN));
            assertEquals(ReadFailure.Kind.NOT_FOUND, notFound.kind(), fallback + ": " + notFound.getMessage());
            master.failWith(500);
            ReadFailure cannotTell = failure(source.read(FileId.parse("78,0102030405")));
            assertEquals(ReadFailure.Kind.UNAVAILABLE, cannotTell.kind(), fallback + ": " + cannotTell.getMessage());
            master.failWith(0);
        }
    }

    @Test
    void withoutAMasterTheConfiguredVolumeServersAreAsked(Vertx vertx) {
        StubVolumeServer volumeServer = await(new StubVolumeServer(vertx).start(Fixtures.volumes()));
        stops.add(() -> await(volumeServer.stop()));
        ResilientNeedleSource source = connected(vertx, null, List.of(HostPort.parse(volumeServer.url())),
                List.of(Fallback.HTTP));
        assertEquals(ReadFailure.Kind.NOT_FOUND, failure(source.read(UNKNOWN)).kind());
        // Volume 1 is served by no agent here, but by the volume server: found there without a hint.
        NeedleContent c = await(source.read(FileId.parse("1,01bb51ad02")));
        assertEquals("http", c.stat().source());
        c.release();
        assertTrue(volumeServer.requests() >= 2);
    }

    @Test
    void aDownAgentMeansNobodyCanTell(Vertx vertx) {
        agents.agent(A.toString()).refuse(true);
        ResilientNeedleSource source = source(vertx, null, List.of(), List.of(Fallback.HTTP), Duration.ofMillis(200));
        until("start-up over", () -> !source.starting());
        ReadFailure f = failure(source.read(UNKNOWN));
        assertEquals(ReadFailure.Kind.UNAVAILABLE, f.kind(), f.getMessage());
        assertTrue(f.getMessage().contains("agent " + A + " is down"), f.getMessage());
        assertEquals(0, f.retryAfterSeconds(), "not starting any more");
    }

    /**
     * Time is the read clock's, moved by hand, and every wait ends on an event (an agent connecting): nothing depends
     * on how fast the host is. B connects while A, which serves the volume, hangs: the read that waited looks again,
     * finds its deadline past, and fails STARTING; a read that waits then is served once A connects.
     */
    @Test
    void whileStartingAReadWaitsForTheAgentAndFailsStartingAtItsDeadline(Vertx vertx) {
        ScriptedAgents.Agent a = agents.agent(A.toString()).serves(2L).hang(true);
        ScriptedAgents.Agent b = agents.agent(B.toString()).serves(3L).hang(true);
        ManualReadClock clock = new ManualReadClock();
        Duration deadline = Duration.ofMinutes(1);
        // Start-up waits a readTimeout for the agents, and a connection attempt ten times that: far off here.
        ResilientNeedleSource source = source(vertx,
                ScriptedAgents.config(List.of(A, B), null, List.of(Fallback.HTTP), Duration.ofMinutes(5)), List.of(),
                deadline, clock);
        Future<NeedleContent> first = source.read(SERVED);
        until("the read waits for the start-up", () -> manager.startup().waiting() == 1);
        await(clock.advance(deadline));
        b.hang(false);
        ReadFailure f = failure(first);
        assertEquals(ReadFailure.Kind.UNAVAILABLE, f.kind());
        assertEquals(1, f.retryAfterSeconds());
        assertTrue(f.getMessage().startsWith("the sidecar is starting: no agent connected so far serves volume 2 "
                + "(still connecting to " + A + ")"), f.getMessage());
        assertTrue(source.starting());
        Future<NeedleContent> waiting = source.read(SERVED);
        until("the next read waits for the start-up", () -> manager.startup().waiting() == 1);
        a.hang(false);
        NeedleContent c = await(waiting);
        assertEquals("rdma", c.stat().source());
        c.release();
        assertTrue(!source.starting());
    }
}
