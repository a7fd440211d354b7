package org.seaweedfs.rdma.sidecar.resilience;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.event.CircuitBreakerOnStateTransitionEvent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.config.EcRebuild;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.config.SidecarConfig;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.connection.ConnectionManagerVerticle;
import org.seaweedfs.rdma.sidecar.ec.EcShardHolders;
import org.seaweedfs.rdma.sidecar.ec.EcShardReader;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.sidecar.read.NeedleReader;
import org.seaweedfs.rdma.sidecar.read.ReadPathOptions;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.AgentSetup;
import org.seaweedfs.rdma.testing.SidecarSetup;
import org.seaweedfs.rdma.testing.StoredNeedles;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.Fixtures;
import org.seaweedfs.rdma.volume.ec.EcTestVolumes;
import org.seaweedfs.rdma.volume.ec.IndependentEcWriter;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;
import static org.seaweedfs.rdma.testing.Await.until;

/**
 * One agent serves healthy volumes (the fixture's {@code 1.dat} and {@code 2.dat}) beside a broken erasure-coded one
 * (volume 4: the fixture erasure-coded with its {@code .ecsum} by {@code tools/independent_ec_encode.py}, five shards
 * rotten, so the agent serves nine: too few to read its needles). Four clients read the broken volume and two the
 * healthy ones at once through the resilient read path with no fallback: every healthy read is served over RDMA
 * with its stored bytes, the broken volume's reads are refused (never answered wrong or 404), and the agent's
 * circuit breaker never counts a failure nor leaves CLOSED. The breaker guards the connection, not one volume.
 */
class EcVolumeTroubleTest {

    private static final long BROKEN = 4;
    private static final int HEALTHY_READS_PER_CLIENT = 300;

    @TempDir
    Path dir;

    @TempDir
    Path staging;

    @Test
    void aBrokenEcVolumeNeverOpensTheBreakerAndHealthyVolumesStayOnRdma() throws Exception {
        Fixtures.copyDir("volumes", dir);
        Path ec = IndependentEcWriter.encodeFixtureWithChecksums(staging.resolve("ec"), 10, 4);
        try (var files = Files.list(ec)) {
            for (Path f : files.toList()) { // the same files as volume 4
                Files.move(f, dir.resolve(BROKEN + f.getFileName().toString().substring(1)));
            }
        }
        for (int id = 0; id < 5; id++) {
            EcTestVolumes.rot(dir.resolve(String.format("%d.ec%02d", BROKEN, id)));
        }
        List<Map.Entry<FileId, byte[]>> healthy = new ArrayList<>(StoredNeedles.of(dir.resolve("1.dat"), 1).values());
        healthy.addAll(StoredNeedles.of(dir.resolve("2.dat"), 2).values());
        List<Map.Entry<FileId, byte[]>> broken = new ArrayList<>(StoredNeedles.of(
                Fixtures.volumes().resolve("1.dat"), BROKEN).values());

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (AgentHarness agent = new AgentHarness(dir, "tcp", AgentSetup.DEFAULTS);
             ReadPathHarness.SidecarSide side = new ReadPathHarness.SidecarSide("tcp",
                     new RegisteredBufferPool.Settings(64 << 10, 64, 1 << 20, 16))) {
            SidecarConfig config = SidecarSetup.config(
                    SidecarSetup.agents(List.of(new HostPort("127.0.0.1", agent.port()))), "maxInFlightReads: 64",
                    SidecarSetup.SMALL_POOL, "ping.interval: 20s", "breaker.openDuration: 10m", "fallback: []");
            ConnectionManagerVerticle manager = new ConnectionManagerVerticle(config,
                    ConnectionManagerVerticle.ucxConnector(side.vertx, side.ucx, config, "test-sidecar"), null,
                    new ReadMeters(registry));
            await(side.vertx.deployVerticle(manager));
            ReadPathOptions options = new ReadPathOptions(config.readTimeout().toMillis(),
                    config.maxNeedleBytes());
            NeedleReader reader = new NeedleReader(side.vertx, manager, side.pool, options, new EcShardReader(
                    EcShardHolders.of(manager::volumesOf, vid -> { }), side.pool, EcRebuild.RDMA,
                    config.readTimeout()));
            ResilientNeedleSource source = new ResilientNeedleSource(side.vertx, manager, reader, null, null,
                    ResilienceSettings.from(config), registry);
            until("the agent lists every volume", () -> manager.routeFor(1) != null && manager.routeFor(2) != null
                    && manager.routeFor(BROKEN) != null);
            CircuitBreaker breaker = source.breaker(config.agents().get(0).toString());
            List<CircuitBreakerOnStateTransitionEvent> transitions = new ArrayList<>();
            breaker.getEventPublisher().onStateTransition(transitions::add);

            Clients brokenReads = new Clients(side.vertx, source, broken, 4, -1);
            Clients healthyReads = new Clients(side.vertx, source, healthy, 2, HEALTHY_READS_PER_CLIENT);
            await(Future.join(healthyReads.done));
            brokenReads.running.set(false);
            await(Future.join(brokenReads.done));

            assertEquals(List.of(), List.copyOf(healthyReads.problems), "healthy reads: their bytes, over RDMA");
            assertEquals(2 * HEALTHY_READS_PER_CLIENT, healthyReads.served.get());
            assertEquals(List.of(), List.copyOf(brokenReads.problems), "broken reads: refused, never wrong or 404");
            assertTrue(brokenReads.refused.get() > 0, "the broken volume's reads were refused");
            assertEquals(CircuitBreaker.State.CLOSED, breaker.getState());
            assertEquals(List.of(), transitions, "the breaker never left CLOSED");
            assertEquals(0, breaker.getMetrics().getNumberOfFailedCalls(), "no refusal counted as a failure");
        }
    }

    /** Concurrent read loops on the sidecar's event loops, each answer checked against the stored bytes. */
    private static final class Clients {
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicInteger served = new AtomicInteger();
        final AtomicInteger refused = new AtomicInteger();
        final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        final List<Future<Void>> done = new ArrayList<>();
        private final ResilientNeedleSource source;
        private final List<Map.Entry<FileId, byte[]>> needles;

        /** {@code reads} per client, or until stopped when negative. */
        Clients(Vertx vertx, ResilientNeedleSource source, List<Map.Entry<FileId, byte[]>> needles, int clients,
                int reads) {
            this.source = source;
            this.needles = needles;
            for (int i = 0; i < clients; i++) {
                Promise<Void> finished = Promise.promise();
                int first = i * 7;
                vertx.getOrCreateContext().runOnContext(v -> next(first, reads, finished));
                done.add(finished.future());
            }
        }

        private void next(int i, int left, Promise<Void> finished) {
            if (left == 0 || !running.get()) {
                finished.complete();
                return;
            }
            Map.Entry<FileId, byte[]> needle = needles.get(i % needles.size());
            source.read(needle.getKey()).onComplete(ar -> {
                if (ar.succeeded()) {
                    NeedleContent c = ar.result();
                    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                    c.chunks().forEach(b -> bytes.writeBytes(b.getBytes()));
                    String from = c.stat().source();
                    c.release();
                    if (!Arrays.equals(needle.getValue(), bytes.toByteArray()) || !"rdma".equals(from)) {
                        problems.add(needle.getKey() + " answered " + bytes.size() + " bytes from " + from);
                    } else {
                        served.incrementAndGet();
                    }
                } else if (ar.cause() instanceof ReadFailure f && f.kind() == ReadFailure.Kind.UNAVAILABLE
                        && left < 0) {
                    refused.incrementAndGet();
                } else {
                    problems.add(needle.getKey() + ": " + ar.cause());
                }
                next(i + 1, left - 1, finished);
            });
        }
    }
}
