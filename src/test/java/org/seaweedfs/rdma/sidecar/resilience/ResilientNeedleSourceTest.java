package org.seaweedfs.rdma.sidecar.resilience;

import org.seaweedfs.rdma.sidecar.InMemoryNeedleSource;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPathStatus;
import org.seaweedfs.rdma.sidecar.ScriptedAgents;
import org.seaweedfs.rdma.sidecar.StubMaster;
import org.seaweedfs.rdma.sidecar.StubVolumeServer;
import org.seaweedfs.rdma.sidecar.connection.ConnectionManagerVerticle;
import org.seaweedfs.rdma.sidecar.fallback.MasterClient;
import org.seaweedfs.rdma.sidecar.fallback.VolumeServerSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.CompositeFuture;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.config.Fallback;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.config.SidecarConfig;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.Fixtures;

/**
 * Breaker, retry and fallback chain with scripted RDMA and read-through paths, the real HTTP fallback against the
 * stand-in volume server (fixture volumes) and the real connection manager over scripted agents.
 */
@ExtendWith(VertxExtension.class)
class ResilientNeedleSourceTest {

    private static final HostPort A = HostPort.parse("10.0.0.1:18515");
    private static final FileId FID = FileId.parse("2,0306bfd555");
    private static final byte[] DATA = "needle bytes".getBytes(StandardCharsets.UTF_8);

    private final ScriptedAgents agents = new ScriptedAgents();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ManualReadClock clock = new ManualReadClock();
    private ScriptedNeedleSource rdma;
    private ScriptedNeedleSource readThrough;
    private StubVolumeServer volumeServer;
    private StubMaster stubMaster;
    private ConnectionManagerVerticle manager;
    private VolumeServerSource http;

    @BeforeEach
    void start(Vertx vertx, VertxTestContext ctx) {
        rdma = new ScriptedNeedleSource(memory(vertx, "rdma"));
        readThrough = new ScriptedNeedleSource(memory(vertx, "read-through"));
        agents.agent(A.toString()).serves(2L);
        volumeServer = new StubVolumeServer(vertx);
        stubMaster = new StubMaster(vertx);
        Future.all(volumeServer.start(Fixtures.volumes()), stubMaster.start()).compose(v -> {
            stubMaster.locate(2, volumeServer.url());
            // Generous timeouts: the first request of a JVM on a busy machine loads the HTTP stack. The reads'
            // deadlines are the hand-moved clock's, so no test waits on these.
            MasterClient master = new MasterClient(vertx, WebClient.create(vertx),
                    new HostPort("127.0.0.1", stubMaster.port()), Duration.ofMinutes(1), Duration.ofSeconds(20));
            http =
                    new VolumeServerSource(VolumeServerSource.newClient(vertx, 4), master, 64L << 20,
                    Duration.ofSeconds(20));
            manager = new ConnectionManagerVerticle(ScriptedAgents.config(List.of(A), master.master(), List.of()),
                    agents, master, new ReadMeters(registry));
            return vertx.deployVerticle(manager);
        }).compose(id ->
                until(vertx, () -> manager.peer(A.toString()).isUp())).onComplete(ctx.succeedingThenComplete());
    }

    @AfterEach
    void stop(VertxTestContext ctx) {
        Future.join(volumeServer.stop(), stubMaster.stop()).onComplete(ctx.succeedingThenComplete());
    }

    private static InMemoryNeedleSource memory(Vertx vertx, String path) {
        InMemoryNeedleSource m = new InMemoryNeedleSource(vertx);
        m.source(path);
        m.put(FID, DATA, "file_2", "", 0, Map.of());
        return m;
    }

    private ResilientNeedleSource resilient(Vertx vertx, List<Fallback> order) {
        return resilient(vertx, order, http);
    }

    /** With {@code volumeServer} as the HTTP fallback (a scripted one, whose answers a test holds back). */
    private ResilientNeedleSource resilient(Vertx vertx, List<Fallback> order, NeedleSource volumeServer) {
        SidecarConfig c = ScriptedAgents.config(List.of(A), null, order);
        return new ResilientNeedleSource(vertx, manager, rdma, readThrough, volumeServer,
                new ResilienceSettings(c.breaker(), order), registry, clock);
    }

    /** Completes once {@code condition} holds, checked on an event loop (so the periodic is set before it runs). */
    private static Future<Void> until(Vertx vertx, Supplier<Boolean> condition) {
        Promise<Void> done = Promise.promise();
        vertx.getOrCreateContext().runOnContext(v -> vertx.setPeriodic(5, t -> {
            if (condition.get()) {
                vertx.cancelTimer(t);
                done.tryComplete();
            }
        }));
        return done.future();
    }

    private static Future<String> sourceOf(Future<NeedleContent> read) {
        return read.map(c -> {
            String s = c.stat().source();
            c.release();
            return s;
        });
    }

    private static ReadFailure.Kind kind(Throwable e) {
        return ((ReadFailure) e).kind();
    }

    private double counter(String name, String... tags) {
        var c = registry.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void aHealthyAgentServesOverRdma(Vertx vertx, VertxTestContext ctx) {
        ResilientNeedleSource source = resilient(vertx, List.of(Fallback.READ_THROUGH, Fallback.HTTP));
        sourceOf(source.read(FID)).onComplete(ctx.succeeding(s -> ctx.verify(() -> {
            assertEquals("rdma", s);
            assertEquals(1, rdma.calls());
            assertEquals(1, registry.get("resilience4j.circuitbreaker.calls").tag("name", A.toString())
                    .tag("kind", "successful").functionTimer().count());
            assertEquals(ReadPathStatus.Health.HEALTHY, source.health());
            ReadPathStatus.AgentStatus status = source.agents().get(0);
            assertEquals(List.of(2L), status.volumes());
            assertEquals("up", status.state());
            assertEquals("closed", status.breaker());
            assertTrue(source.rdmaConnected());
            ctx.completeNow();
        })));
    }

    @Test
    void retriableFailuresAreRetriedThenTheFallbackServes(Vertx vertx, VertxTestContext ctx) {
        ResilientNeedleSource source = resilient(vertx, List.of(Fallback.READ_THROUGH, Fallback.HTTP));
        rdma.failWith(ReadFailure.unavailable("endpoint error", null));
        sourceOf(source.read(FID))
                .compose(s -> {
                    ctx.verify(() -> {
                        assertEquals("read-through", s);
                        assertEquals(3, rdma.calls(), "sidecar.retry.maxAttempts");
                        assertEquals(1,
                                source.retry(A.toString()).getMetrics().getNumberOfFailedCallsWithRetryAttempt());
                        assertEquals(1.0,
                                counter("seaweedfs.rdma.fallback.reads", "path", "read-through", "reason",
                                "retries_exhausted"));
                    });
                    rdma.failWith(new ReadFailure(ReadFailure.Kind.TIMEOUT, "no completion"));
                    // A fresh breaker: this one's window of 4 would open on the next failure.
                    return resilient(vertx, List.of(Fallback.READ_THROUGH)).stat(FID);
                })
                .onComplete(ctx.succeeding(stat -> ctx.verify(() -> {
                    assertEquals("read-through", stat.source());
                    assertEquals(6, rdma.calls(), "timeouts are retried too");
                    ctx.completeNow();
                })));
    }

    /**
     * The RDMA attempts and the fallbacks share one deadline ({@code sidecar.readTimeout}): a fallback still busy when
     * it passes fails the read TIMEOUT, and its late answer is given back rather than leaked.
     */
    @Test
    void aFallbackStillBusyAtTheReadsDeadlineFailsTimeoutAndItsLateAnswerIsGivenBack(Vertx vertx,
                                                                                      VertxTestContext ctx) {
        rdma.withReadTimeout(Duration.ofMillis(300)).failWith(ReadFailure.unavailable("endpoint error", null));
        readThrough.delegate().hold(true);
        ResilientNeedleSource source = resilient(vertx, List.of(Fallback.READ_THROUGH));
        Future<NeedleContent> read = source.read(FID);
        until(vertx, () -> readThrough.delegate().heldReads() == 1)
                .compose(v -> clock.advance(Duration.ofMillis(300)))
                .compose(v -> read.transform(ar -> Future.succeededFuture(ar.cause())))
                .onComplete(ctx.succeeding(e -> ctx.verify(() -> {
                    assertEquals(ReadFailure.Kind.TIMEOUT, kind(e));
                    assertTrue(e.getMessage().contains("sidecar.readTimeout (300 ms)"), e.getMessage());
                    assertEquals(1.0, counter("seaweedfs.rdma.reads.past.deadline"));
                    readThrough.delegate().releaseHeld();
                    until(vertx, () -> readThrough.delegate().unreleased() == 0)
                            .onComplete(ctx.succeedingThenComplete());
                })));
    }

    /** A read unanswered at its deadline fails TIMEOUT; its attempt's late answer is given back, nothing follows. */
    @Test
    void aReadUnansweredAtItsDeadlineFailsTimeoutAndNothingStartsAfter(Vertx vertx, VertxTestContext ctx) {
        rdma.withReadTimeout(Duration.ofMillis(100));
        rdma.delegate().hold(true);
        ResilientNeedleSource source = resilient(vertx, List.of());
        Future<NeedleContent> read = source.read(FID);
        until(vertx, () -> rdma.delegate().heldReads() == 1)
                .compose(v -> clock.advance(Duration.ofMillis(100)))
                .compose(v -> read.transform(ar -> Future.succeededFuture(ar.cause())))
                .onComplete(ctx.succeeding(e -> ctx.verify(() -> {
                    assertEquals(ReadFailure.Kind.TIMEOUT, kind(e));
                    rdma.delegate().releaseHeld();
                    until(vertx, () -> rdma.delegate().unreleased() == 0).onComplete(ctx.succeeding(x -> ctx.verify(
                            () -> {
                                assertEquals(1, rdma.calls(), "no retry after the deadline");
                                assertEquals(0, readThrough.calls());
                                ctx.completeNow();
                            })));
                })));
    }

    /**
     * A read the agent has not answered within its hedge delay is hedged to a second source (a volume server, whose
     * answer is held back too); the first answer is used, and the slower one, landing later, is given back. Here
     * RDMA answers first after the hedge started.
     */
    @Test
    void aHedgeRacingALateAnswerUsesExactlyOneAndGivesTheOtherBack(Vertx vertx, VertxTestContext ctx) {
        rdma.delegate().hold(true);
        ScriptedNeedleSource volumeServerPath = new ScriptedNeedleSource(memory(vertx, "http"));
        volumeServerPath.delegate().hold(true);
        ResilientNeedleSource source = resilient(vertx, List.of(Fallback.READ_THROUGH, Fallback.HTTP),
                volumeServerPath);
        Future<String> read = sourceOf(source.read(FID));
        until(vertx, () -> rdma.delegate().heldReads() == 1)
                .compose(v -> clock.advance(Duration.ofNanos(hedgeDelay(source))))
                .compose(v -> until(vertx, () -> volumeServerPath.delegate().heldReads() == 1))
                .compose(v -> {
                    ctx.verify(() -> assertEquals(1.0, counter("seaweedfs.rdma.hedges.started", "source",
                            "http")));
                    rdma.delegate().releaseHeld();
                    return read;
                })
                .compose(s -> {
                    ctx.verify(() -> assertEquals("rdma", s, "the first answer is used"));
                    volumeServerPath.delegate().releaseHeld();
                    return until(vertx, () -> volumeServerPath.delegate().unreleased() == 0);
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(0, rdma.delegate().unreleased(), "the answer used was released by its reader");
                    assertEquals(1, volumeServerPath.calls());
                    assertEquals(0, readThrough.calls(), "read-through asks the same agent: no hedge goes there");
                    assertEquals(0.0, counter("seaweedfs.rdma.hedges.won", "source", "http"));
                    ctx.completeNow();
                })));
    }

    /**
     * A hedge that stalls too is followed only by a source the read has not tried: the volume server, its one other
     * source, is not asked twice however long both wait, and the answer that comes first is used.
     */
    @Test
    void aStalledHedgeIsNotFollowedByTheSameSourceAgain(Vertx vertx, VertxTestContext ctx) {
        rdma.delegate().hold(true);
        ScriptedNeedleSource volumeServerPath = new ScriptedNeedleSource(memory(vertx, "http"));
        volumeServerPath.delegate().hold(true);
        ResilientNeedleSource source = resilient(vertx, List.of(Fallback.HTTP), volumeServerPath);
        Future<String> read = sourceOf(source.read(FID));
        Duration delay = Duration.ofNanos(hedgeDelay(source));
        until(vertx, () -> rdma.delegate().heldReads() == 1)
                .compose(v -> clock.advance(delay))
                .compose(v -> until(vertx, () -> volumeServerPath.delegate().heldReads() == 1))
                .compose(v -> clock.advance(delay))
                .compose(v -> clock.advance(delay))
                .compose(v -> {
                    ctx.verify(() -> {
                        assertEquals(1.0, counter("seaweedfs.rdma.hedges.started", "source", "http"));
                        assertEquals(1, volumeServerPath.calls(), "the stalled hedge's source is not asked again");
                        assertEquals(false, read.isComplete());
                    });
                    volumeServerPath.delegate().releaseHeld();
                    return read;
                })
                .compose(s -> {
                    ctx.verify(() -> assertEquals("http", s, "the stalled hedge answered first"));
                    rdma.delegate().releaseHeld();
                    return until(vertx, () -> rdma.delegate().unreleased() == 0);
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(0.0, counter("seaweedfs.rdma.reads.past.deadline"));
                    ctx.completeNow();
                })));
    }

    /** The hedge answers while RDMA still hangs: it is used, the agent's breaker hears of it, RDMA's is given back. */
    @Test
    void aHedgeThatWinsIsUsedAndTheHungAttemptIsGivenBackWhenItLands(Vertx vertx, VertxTestContext ctx) {
        rdma.delegate().hold(true);
        ResilientNeedleSource source = resilient(vertx, List.of(Fallback.READ_THROUGH, Fallback.HTTP));
        readPastTheHedgeDelay(vertx, source)
                .compose(s -> {
                    ctx.verify(() -> {
                        assertEquals("http", s, "the hedge goes to the volume server, not through the same agent");
                        assertEquals(1.0, counter("seaweedfs.rdma.hedges.won", "source", "http"));
                        assertEquals(1, source.breaker(A.toString()).getMetrics().getNumberOfFailedCalls(),
                                "the hung agent lost the read");
                        assertEquals(0, readThrough.calls());
                    });
                    rdma.delegate().releaseHeld();
                    return until(vertx, () -> rdma.delegate().unreleased() == 0);
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(1, source.breaker(A.toString()).getMetrics().getNumberOfBufferedCalls(),
                            "the late answer is not counted twice");
                    ctx.completeNow();
                })));
    }

    /**
     * A read with no other source is never hedged: it waits for RDMA. Read-through is no other source: it asks the
     * same agent (it stays a fallback once RDMA gives up).
     */
    @Test
    void aReadWithNoOtherSourceIsNotHedged(Vertx vertx, VertxTestContext ctx) {
        rdma.delegate().hold(true);
        ResilientNeedleSource source = resilient(vertx, List.of(Fallback.READ_THROUGH));
        Future<String> read = sourceOf(source.read(FID));
        until(vertx, () -> rdma.delegate().heldReads() == 1)
                .compose(v -> clock.advance(Duration.ofNanos(hedgeDelay(source))))
                .compose(v -> {
                    ctx.verify(() -> {
                        assertEquals(false, read.isComplete());
                        assertEquals(null, registry.find("seaweedfs.rdma.hedges.started").counter());
                    });
                    rdma.delegate().releaseHeld();
                    return read;
                })
                .onComplete(ctx.succeeding(s -> ctx.verify(() -> {
                    assertEquals("rdma", s);
                    assertEquals(0, readThrough.calls());
                    ctx.completeNow();
                })));
    }

    /**
     * A hedge that fails leaves the read to RDMA; when RDMA gives up too, the fallbacks the hedge did not try serve it
     * (read-through, which no hedge takes).
     */
    @Test
    void whenTheHedgeAndRdmaBothFailTheFallbacksLeftServe(Vertx vertx, VertxTestContext ctx) {
        rdma.delegate().hold(true);
        ScriptedNeedleSource volumeServerPath = new ScriptedNeedleSource(memory(vertx, "http"));
        volumeServerPath.failWith(ReadFailure.unavailable("volume server refused the connection", null));
        ResilientNeedleSource source = resilient(vertx, List.of(Fallback.READ_THROUGH, Fallback.HTTP),
                volumeServerPath);
        Future<String> read = sourceOf(source.read(FID));
        until(vertx, () -> rdma.delegate().heldReads() == 1)
                .compose(v -> clock.advance(Duration.ofNanos(hedgeDelay(source))))
                .compose(v -> until(vertx, () -> volumeServerPath.calls() == 1))
                .compose(v -> {
                    ctx.verify(() -> assertEquals(false, read.isComplete(), "RDMA may still answer"));
                    rdma.delegate().fail(FID, ReadFailure.unavailable("endpoint closed by peer", null));
                    rdma.delegate().releaseHeld();
                    return read;
                })
                .onComplete(ctx.succeeding(s -> ctx.verify(() -> {
                    assertEquals("read-through", s);
                    assertEquals(1, volumeServerPath.calls(), "the failed hedge is not tried again");
                    assertEquals(1, readThrough.calls());
                    ctx.completeNow();
                })));
    }

    /**
     * A read whose breaker is open gives up RDMA at once and goes to the fallbacks; the read's deadline holds it there
     * too (read-through waiting on a stopped agent fails TIMEOUT in time, and its late answer is given back).
     */
    @Test
    void aReadOnTheFallbacksAfterItsBreakerOpenedIsHeldToItsDeadline(Vertx vertx, VertxTestContext ctx) {
        readThrough.delegate().hold(true);
        ResilientNeedleSource source = resilient(vertx, List.of(Fallback.READ_THROUGH));
        source.breaker(A.toString()).transitionToOpenState();
        Future<NeedleContent> read = source.read(FID);
        until(vertx, () -> readThrough.delegate().heldReads() == 1)
                .compose(v -> clock.advance(Duration.ofMillis(rdma.readTimeoutMs())))
                .compose(v -> read.transform(ar -> Future.succeededFuture(ar.cause())))
                .onComplete(ctx.succeeding(e -> ctx.verify(() -> {
                    assertEquals(ReadFailure.Kind.TIMEOUT, kind(e));
                    assertEquals(0, rdma.calls());
                    readThrough.delegate().releaseHeld();
                    until(vertx, () -> readThrough.delegate().unreleased() == 0)
                            .onComplete(ctx.succeedingThenComplete());
                })));
    }

    /**
     * A trial read of a half-open breaker that loses its race to a hedge is judged by its own answer when it lands:
     * an agent just back that answers late is not shut out again for it.
     */
    @Test
    void aHalfOpenTrialThatLosesItsRaceIsJudgedByItsOwnAnswer(Vertx vertx, VertxTestContext ctx) {
        rdma.delegate().hold(true);
        ResilientNeedleSource source = resilient(vertx, List.of(Fallback.HTTP),
                new ScriptedNeedleSource(memory(vertx, "http")));
        CircuitBreaker breaker = source.breaker(A.toString());
        breaker.transitionToOpenState();
        breaker.transitionToHalfOpenState();
        readPastTheHedgeDelay(vertx, source)
                .compose(s -> {
                    ctx.verify(() -> {
                        assertEquals("http", s, "hedged at once: the agent is not known good");
                        assertEquals(0, breaker.getMetrics().getNumberOfFailedCalls());
                    });
                    rdma.delegate().releaseHeld();
                    return until(vertx, () -> rdma.delegate().unreleased() == 0
                            && breaker.getMetrics().getNumberOfSuccessfulCalls() == 1);
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(0, breaker.getMetrics().getNumberOfFailedCalls(), "its late answer was a success");
                    assertEquals(CircuitBreaker.State.HALF_OPEN, breaker.getState());
                    ctx.completeNow();
                })));
    }

    /**
     * A read whose first attempt the agent answered with its bytes gone (a .dat cut in place) is retried, and a hedge
     * that wins while the retry is out says nothing against the agent: its breaker is not told.
     */
    @Test
    void aHedgeThatWinsAfterTheAgentSaidTheBytesAreGoneIsNotHeldAgainstIt(Vertx vertx, VertxTestContext ctx) {
        rdma.failNext(1, ReadFailure.dataGone("looking up " + FID + ": agent answered UNAVAILABLE: entries wait",
                null));
        rdma.delegate().hold(true);
        ResilientNeedleSource source = resilient(vertx, List.of(Fallback.HTTP),
                new ScriptedNeedleSource(memory(vertx, "http")));
        CircuitBreaker breaker = source.breaker(A.toString());
        readPastTheHedgeDelay(vertx, source)
                .compose(s -> {
                    ctx.verify(() -> {
                        assertEquals("http", s);
                        assertEquals(2, rdma.calls(), "the retry was out when the hedge won");
                        assertEquals(0, breaker.getMetrics().getNumberOfFailedCalls());
                    });
                    rdma.delegate().releaseHeld();
                    return until(vertx, () -> rdma.delegate().unreleased() == 0);
                })
                .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
                    assertEquals(0, breaker.getMetrics().getNumberOfFailedCalls());
                    assertEquals(CircuitBreaker.State.CLOSED, breaker.getState());
                    ctx.completeNow();
                })));
    }

    /**
     * A stall (the agent paused, stopped, or the host busy) makes the reads in flight lose their races, and their
     * losses open the breaker. The first of their answers to land shows the agent serves again: the breaker goes
     * half-open at once, not after openDuration (ten minutes here), and the next read is served over RDMA.
     */
    @Test
    void theFirstLateAnswerAfterAStallTurnsTheBreakerItsLostRacesOpenedHalfOpen(Vertx vertx, VertxTestContext ctx) {
        stalledThenAnswered(vertx, ctx, null);
    }

    /**
     * The same when the late answers say the needle's bytes are gone (a .dat cut in place under the agent, which
     * stalled on the cut pages): the agent answered, so it serves again.
     */
    @Test
    void aLateAnswerThatTheBytesAreGoneTurnsTheBreakerHalfOpenToo(Vertx vertx, VertxTestContext ctx) {
        stalledThenAnswered(vertx, ctx, ReadFailure.dataGone("looking up " + FID + ": agent answered INTERNAL: "
                + "record holds needle 0, the index says 15", null));
    }

    /**
     * Reads that lose their races while the agent still sends frames (it answers other requests: a volume of it
     * reopening, a burst) are not held against it: the agent is busy, not gone, and its breaker stays closed, so the
     * next read is on RDMA as soon as the burst ends rather than after openDuration (ten minutes here).
     */
    @Test
    void racesLostWhileTheAgentIsHeardFromDoNotOpenItsBreaker(Vertx vertx, VertxTestContext ctx) {
        ResilientNeedleSource source = slowRdmaFastHttp(vertx);
        CircuitBreaker breaker = source.breaker(A.toString());
        racesLost(vertx, source, () -> agents.agent(A.toString()).sendsFrame())
                .compose(all -> {
                    ctx.verify(() -> {
                        assertEquals(List.of("http"), all.list().stream().distinct().toList(), "the hedges won");
                        assertEquals(CircuitBreaker.State.CLOSED, breaker.getState());
                    });
                    rdma.delegate().hold(false);
                    rdma.delegate().releaseHeld();
                    return until(vertx, () -> rdma.delegate().unreleased() == 0);
                })
                .compose(v -> sourceOf(source.read(FID)))
                .onComplete(ctx.succeeding(s -> ctx.verify(() -> {
                    assertEquals("rdma", s);
                    assertEquals(CircuitBreaker.State.CLOSED, breaker.getState());
                    ctx.completeNow();
                })));
    }

    /** A source whose RDMA reads are held (until released) and whose breaker opens for ten minutes. */
    private ResilientNeedleSource slowRdmaFastHttp(Vertx vertx) {
        rdma.delegate().hold(true);
        return new ResilientNeedleSource(vertx, manager, rdma, readThrough,
                new ScriptedNeedleSource(memory(vertx, "http")), new ResilienceSettings(
                        new SidecarConfig.Breaker(Duration.ofMinutes(10)), List.of(Fallback.HTTP)), registry, clock);
    }

    /**
     * As many reads as the breaker counts before it may open, held by RDMA until their hedges start: {@code whileHeld}
     * runs once they all wait, then the clock passes their hedge delay. Completes with the paths that answered them.
     */
    private Future<CompositeFuture> racesLost(Vertx vertx, ResilientNeedleSource source, Runnable whileHeld) {
        int stalled = ResilienceSettings.BREAKER_MINIMUM_CALLS;
        List<Future<String>> reads = new java.util.ArrayList<>();
        for (int i = 0; i < stalled; i++) {
            reads.add(sourceOf(source.read(FID)));
        }
        return until(vertx, () -> rdma.delegate().heldReads() == stalled)
                .compose(v -> {
                    whileHeld.run();
                    return clock.advance(Duration.ofNanos(hedgeDelay(source)));
                })
                .compose(v -> Future.all(reads));
    }

    /**
     * Reads held by RDMA until they lose their races and open the breaker, then answered ({@code landing} null) or
     * failed with {@code landing}: the breaker is half-open; the next read is served over RDMA when they were served.
     */
    private void stalledThenAnswered(Vertx vertx, VertxTestContext ctx, ReadFailure landing) {
        ResilientNeedleSource source = slowRdmaFastHttp(vertx);
        CircuitBreaker breaker = source.breaker(A.toString());
        racesLost(vertx, source, () -> { })
                .compose(all -> {
                    ctx.verify(() -> {
                        assertEquals(List.of("http"), all.list().stream().distinct().toList());
                        assertEquals(CircuitBreaker.State.OPEN, breaker.getState(), "the lost races opened it");
                    });
                    if (landing != null) {
                        rdma.delegate().fail(FID, landing);
                    }
                    rdma.delegate().releaseHeld();
                    return until(vertx, () -> rdma.delegate().unreleased() == 0
                            && breaker.getState() != CircuitBreaker.State.OPEN);
                })
                .compose(v -> {
                    ctx.verify(() -> assertEquals(CircuitBreaker.State.HALF_OPEN, breaker.getState()));
                    return landing == null ? sourceOf(source.read(FID)) : Future.succeededFuture("rdma");
                })
                .onComplete(ctx.succeeding(s -> ctx.verify(() -> {
                    assertEquals("rdma", s, "back on RDMA, long before openDuration");
                    ctx.completeNow();
                })));
    }

    /**
     * With the hedge budget used up, a read past its hedge delay waits while its agent looks healthy, and is hedged at
     * once when the agent is known bad (its breaker open): reads already queued on a stopped agent fail over.
     */
    @Test
    void pastTheBudgetAReadIsHedgedOnlyOnceItsAgentIsKnownBad(Vertx vertx, VertxTestContext ctx) {
        rdma.delegate().hold(true);
        ScriptedNeedleSource volumeServerPath = new ScriptedNeedleSource(memory(vertx, "http"));
        ResilientNeedleSource source = resilient(vertx, List.of(Fallback.READ_THROUGH, Fallback.HTTP),
                volumeServerPath);
        while (source.hedgeBudget().tryTake()) {
            // a burst of hedges elsewhere used the bucket up
        }
        Future<String> read = sourceOf(source.read(FID));
        long delay = hedgeDelay(source);
        until(vertx, () -> rdma.delegate().heldReads() == 1)
                .compose(v -> clock.advance(Duration.ofNanos(delay)))
                .compose(v -> {
                    ctx.verify(() -> {
                        assertEquals(false, read.isComplete(), "no hedge beyond the budget");
                        assertEquals(0, volumeServerPath.calls());
                    });
                    source.breaker(A.toString()).transitionToOpenState();
                    return clock.advance(Duration.ofNanos(delay));
                })
                .compose(v -> read)
                .onComplete(ctx.succeeding(s -> ctx.verify(() -> {
                    assertEquals("http", s);
                    assertEquals(0, readThrough.calls());
                    rdma.delegate().releaseHeld();
                    until(vertx, () -> rdma.delegate().unreleased() == 0).onComplete(ctx.succeedingThenComplete());
                })));
    }

    /** A read of the needle while RDMA holds it, past the agent's hedge delay: the source that answered. */
    private Future<String> readPastTheHedgeDelay(Vertx vertx, ResilientNeedleSource source) {
        Future<String> read = sourceOf(source.read(FID));
        return until(vertx, () -> rdma.delegate().heldReads() == 1)
                .compose(v -> clock.advance(Duration.ofNanos(hedgeDelay(source))))
                .compose(v -> read);
    }

    private long hedgeDelay(ResilientNeedleSource source) {
        return source.hedgeDelayNanos(A.toString());
    }

    /** A burst over this sidecar's own bounds is not the agent failing: the breaker stays closed. */
    @Test
    void theSidecarsOwnBoundsAreRetriedButNeverOpenTheBreaker(Vertx vertx, VertxTestContext ctx) {
        retriedButNeverOpensTheBreaker(vertx, ctx,
                ReadFailure.overloaded("registered buffer pool is used up (16 buffers in use)"));
    }

    /** Bytes gone from under the agent's needle map (a .dat cut in place) are not the agent failing either. */
    @Test
    void dataGoneFromUnderTheAgentIsRetriedButNeverOpensTheBreaker(Vertx vertx, VertxTestContext ctx) {
        retriedButNeverOpensTheBreaker(vertx, ctx, ReadFailure.dataGone("looking up " + FID
                + ": agent answered INTERNAL: record holds needle 0, the index says 15", null));
    }

    /** Six reads failing with {@code failure} are retried, then read through; the breaker stays closed. */
    private void retriedButNeverOpensTheBreaker(Vertx vertx, VertxTestContext ctx, ReadFailure failure) {
        ResilientNeedleSource source = resilient(vertx, List.of(Fallback.READ_THROUGH));
        CircuitBreaker breaker = source.breaker(A.toString());
        rdma.failWith(failure);
        // Two reads of three attempts each: six failures would open a window of 4 at 50 %.
        sourceOf(source.read(FID))
                .compose(s -> sourceOf(source.read(FID)).map(t -> s + "," + t))
                .compose(both -> {
                    ctx.verify(() -> {
                        assertEquals("read-through,read-through", both);
                        assertEquals(6, rdma.calls(), "retried like any unavailable read");
                        assertEquals(CircuitBreaker.State.CLOSED, breaker.getState());
                        assertEquals(0, breaker.getMetrics().getNumberOfFailedCalls());
                        assertEquals(ReadPathStatus.Health.HEALTHY, source.health());
                    });
                    rdma.failWith(null);
                    return sourceOf(source.read(FID));
                })
                .onComplete(ctx.succeeding(s -> ctx.verify(() -> {
                    assertEquals("rdma", s, "the agent's reads were never diverted");
                    ctx.completeNow();
                })));
    }

    @Test
    void notFoundAndBadRequestAreAnswersNeitherRetriedNorDegraded(Vertx vertx, VertxTestContext ctx) {
        ResilientNeedleSource source = resilient(vertx, List.of(Fallback.READ_THROUGH, Fallback.HTTP));
        rdma.failWith(ReadFailure.notFound("no such needle"));
        source.read(FID)
                .recover(e -> {
                    ctx.verify(() -> {
                        assertEquals(ReadFailure.Kind.NOT_FOUND, kind(e));
                        assertEquals(1, rdma.calls());
                    });
                    rdma.failWith(new ReadFailure(ReadFailure.Kind.BAD_REQUEST, "offset past the record"));
                    return source.read(FID);
                })
                .onComplete(ctx.failing(e -> ctx.verify(() -> {
                    assertEquals(ReadFailure.Kind.BAD_REQUEST, kind(e));
                    assertEquals(2, rdma.calls());
                    assertEquals(0, readThrough.calls());
                    assertEquals(0, volumeServer.requests());
                    CircuitBreaker.Metrics m = source.breaker(A.toString()).getMetrics();
                    assertEquals(0, m.getNumberOfFailedCalls());
                    assertEquals(2, m.getNumberOfSuccessfulCalls(), "the path worked");
                    ctx.completeNow();
                })));
    }

    @Test
    void corruptIsNotRetriedNotCountedByTheBreakerAndAnotherCopyIsServed(Vertx vertx, VertxTestContext ctx) {
        ResilientNeedleSource source = resilient(vertx, List.of(Fallback.HTTP));
        rdma.failWith(ReadFailure.corrupt("crc mismatch"));
        sourceOf(source.read(FID)).onComplete(ctx.succeeding(s -> ctx.verify(() -> {
            assertEquals("http", s);
            assertEquals(1, rdma.calls());
            assertEquals(1, volumeServer.requests());
            assertEquals(0, source.breaker(A.toString()).getMetrics().getNumberOfFailedCalls());
            assertEquals(1.0, counter("seaweedfs.rdma.corrupt.reads", "agent", A.toString()));
            assertEquals(1.0, counter("seaweedfs.rdma.fallback.reads", "path", "http", "reason", "corrupt"));
            ctx.completeNow();
        })));
    }

    @Test
    void theBreakerOpensTheFallbackServesAndItClosesAfterRecovery(Vertx vertx, VertxTestContext ctx) {
        // A volume server answering at once: the breaker stays open (200 ms) while the reads here run.
        ResilientNeedleSource source = resilient(vertx, List.of(Fallback.READ_THROUGH, Fallback.HTTP),
                new ScriptedNeedleSource(memory(vertx, "http")));
        CircuitBreaker breaker = source.breaker(A.toString());
        rdma.failWith(ReadFailure.unavailable("endpoint error", null));
        // At least 10 calls, 50 %: three reads make 3 failed attempts each, the fourth a 10th, which opens it.
        Future<String> failing = sourceOf(source.read(FID));
        for (int i = 1; i < 4; i++) {
            failing = failing.compose(s -> sourceOf(source.read(FID)));
        }
        failing.compose(s -> {
                    ctx.verify(() -> {
                        assertEquals(CircuitBreaker.State.OPEN, breaker.getState());
                        assertEquals(ResilienceSettings.BREAKER_MINIMUM_CALLS, rdma.calls());
                        assertEquals(ReadPathStatus.Health.DEGRADED, source.health());
                        assertEquals("open", source.agents().get(0).breaker());
                    });
                    return sourceOf(source.read(FID));
                })
                .compose(s -> {
                    ctx.verify(() -> {
                        assertEquals("http", s, "read-through goes over the agent's failing connection: HTTP first");
                        assertEquals(10, rdma.calls(), "an open breaker sends nothing over RDMA");
                        // The fourth read's retry already met the open breaker.
                        assertEquals(2.0,
                                counter("seaweedfs.rdma.fallback.reads", "path", "http", "reason",
                                "breaker_open"));
                        assertEquals(3, readThrough.calls(), "the first three reads', their retries exhausted");
                        assertTrue(registry.find("resilience4j.circuitbreaker.state").tag("name",
                                A.toString()).gauges().size() > 0);
                        // Resilience4j's call meters, recorded by the read path itself (no breaker events).
                        assertEquals(10, registry.get("resilience4j.circuitbreaker.calls").tag("name", A.toString())
                                .tag("kind", "failed").functionTimer().count());
                        assertEquals(2.0,
                                counter("resilience4j.circuitbreaker.not.permitted.calls", "name", A.toString()));
                    });
                    rdma.failWith(null);
                    // After openDuration the next calls are half-open trials; halfOpenCalls successes close it.
                    return until(vertx, () -> {
                        source.read(FID).onSuccess(NeedleContent::release);
                        return breaker.getState() == CircuitBreaker.State.CLOSED;
                    });
                })
                .compose(v -> sourceOf(source.read(FID)))
                .onComplete(ctx.succeeding(s -> ctx.verify(() -> {
                    assertEquals("rdma", s);
                    assertEquals(ReadPathStatus.Health.HEALTHY, source.health());
                    ctx.completeNow();
                })));
    }

    @Test
    void aDownAgentSkipsRdmaAndReadThroughAndHttpServesTheFixture(Vertx vertx, VertxTestContext ctx) {
        ResilientNeedleSource source = resilient(vertx, List.of(Fallback.READ_THROUGH, Fallback.HTTP));
        ScriptedAgents.Agent a = agents.agent(A.toString());
        a.refuse(true);
        a.drop("endpoint closed by peer");
        until(vertx, () -> !manager.peer(A.toString()).isUp())
                .compose(v -> source.read(FID))
                .onComplete(ctx.succeeding(c -> ctx.verify(() -> {
                    assertEquals("http", c.stat().source());
                    assertEquals(75634, c.stat().size(), "the fixture's bytes, not the doubles'");
                    assertEquals("4af853fb", c.stat().etag());
                    assertEquals(0, rdma.calls());
                    assertEquals(0, readThrough.calls());
                    assertEquals(1.0, counter("seaweedfs.rdma.fallback.reads", "path", "http", "reason", "agent_down"));
                    assertEquals(ReadPathStatus.Health.DEGRADED, source.health());
                    assertEquals("down", source.agents().get(0).state());
                    ctx.completeNow();
                })));
    }

    @Test
    void aNotFoundFromAFallbackIsFinal(Vertx vertx, VertxTestContext ctx) {
        ResilientNeedleSource source = resilient(vertx, List.of(Fallback.READ_THROUGH, Fallback.HTTP));
        rdma.failWith(ReadFailure.unavailable("endpoint error", null));
        readThrough.failWith(ReadFailure.notFound("deleted"));
        source.read(FID).onComplete(ctx.failing(e -> ctx.verify(() -> {
            assertEquals(ReadFailure.Kind.NOT_FOUND, kind(e));
            assertEquals(0, volumeServer.requests());
            ctx.completeNow();
        })));
    }

    @Test
    void withoutAnAgentOrAFallbackThereIsNoPath(Vertx vertx, VertxTestContext ctx) {
        ResilientNeedleSource none = resilient(vertx, List.of());
        ResilientNeedleSource httpOnly = resilient(vertx, List.of(Fallback.HTTP));
        FileId unknownVolume = FileId.parse("1,01bb51ad02");
        stubMaster.locate(1, volumeServer.url());
        httpOnly.read(unknownVolume, volumeServer.url())
                .compose(c -> {
                    ctx.verify(() -> assertEquals("http", c.stat().source()));
                    rdma.failWith(ReadFailure.unavailable("endpoint error", null));
                    return none.read(FID);
                })
                .onComplete(ctx.failing(e -> ctx.verify(() -> {
                    assertEquals(ReadFailure.Kind.UNAVAILABLE, kind(e));
                    assertEquals(503, ((ReadFailure) e).code());
                    ctx.completeNow();
                })));
    }
}
