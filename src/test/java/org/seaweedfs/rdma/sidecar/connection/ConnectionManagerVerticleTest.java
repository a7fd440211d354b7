package org.seaweedfs.rdma.sidecar.connection;

import org.seaweedfs.rdma.sidecar.ScriptedAgents;
import org.seaweedfs.rdma.sidecar.StubMaster;
import org.seaweedfs.rdma.sidecar.fallback.MasterClient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.config.Fallback;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.metrics.ReadMeters;

/** The manager's state machine against scripted agents (the real agent over UCX is in the end-to-end test). */
@ExtendWith(VertxExtension.class)
class ConnectionManagerVerticleTest {

    private static final HostPort A = HostPort.parse("10.0.0.1:18515");
    private static final HostPort B = HostPort.parse("10.0.0.2:18515");

    private final ScriptedAgents agents = new ScriptedAgents();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<JsonObject> events = new CopyOnWriteArrayList<>();
    private final List<Promise<JsonObject>> waiters = new CopyOnWriteArrayList<>();
    private final List<Predicate<JsonObject>> waits = new CopyOnWriteArrayList<>();

    @BeforeEach
    void listen(Vertx vertx) {
        vertx.eventBus().<JsonObject>consumer(ConnectionManagerVerticle.PEER_STATE_ADDRESS, m -> {
            events.add(m.body());
            for (int i = 0; i < waits.size(); i++) {
                if (waits.get(i).test(m.body())) {
                    waiters.get(i).tryComplete(m.body());
                }
            }
        });
    }

    /** The first state event (already seen or to come) matching agent and state. */
    private synchronized Future<JsonObject> event(String agent, String state) {
        Predicate<JsonObject> p = e -> agent.equals(e.getString("agent")) && state.equals(e.getString("state"));
        for (JsonObject e : events) {
            if (p.test(e)) {
                return Future.succeededFuture(e);
            }
        }
        Promise<JsonObject> promise = Promise.promise();
        waits.add(p);
        waiters.add(promise);
        return promise.future();
    }

    /** The next matching event after those seen so far. */
    private synchronized Future<JsonObject> nextEvent(String agent, String state) {
        int seen = events.size();
        Predicate<JsonObject> p = e -> agent.equals(e.getString("agent")) && state.equals(e.getString("state"))
                && events.indexOf(e) >= seen;
        Promise<JsonObject> promise = Promise.promise();
        waits.add(p);
        waiters.add(promise);
        return promise.future();
    }

    private Future<ConnectionManagerVerticle> deploy(Vertx vertx, List<HostPort> list, MasterClient master) {
        ConnectionManagerVerticle manager = new ConnectionManagerVerticle(
                ScriptedAgents.config(list, master == null ? null : master.master(), List.of(Fallback.HTTP)),
                agents, master, new ReadMeters(registry));
        return vertx.deployVerticle(manager).map(id -> manager);
    }

    private double gauge(String agent, String state) {
        return registry.get("seaweedfs.rdma.agent.state").tag("agent", agent).tag("state", state).gauge().value();
    }

    @Test
    void connectsRoutesByVolumeListsAndPublishesStates(Vertx vertx, VertxTestContext ctx) {
        agents.agent(A.toString()).serves(1L, 2L);
        agents.agent(B.toString()).serves(3L);
        deploy(vertx, List.of(A, B),
                null).compose(m -> Future.all(event(A.toString(), "up"), event(B.toString(), "up")).map(m))
                .onComplete(ctx.succeeding(m -> ctx.verify(() -> {
                    assertSame(m.peer(A.toString()), m.peerFor(2));
                    assertSame(m.peer(B.toString()), m.peerFor(3));
                    assertNull(m.peerFor(4));
                    JsonObject up =
                            events.stream().filter(e ->
                            e.getString("agent").equals(A.toString())).findFirst().orElseThrow();
                    assertEquals("connecting", up.getString("previous"));
                    assertTrue(up.getString("reason").contains("2 volumes"), up.encode());
                    assertTrue(up.getString("time").endsWith("Z"), up.encode());
                    assertEquals(1.0, gauge(A.toString(), "up"));
                    assertEquals(0.0, gauge(A.toString(), "down"));
                    ctx.completeNow();
                })));
    }

    @Test
    void anAgentThatHangsIsDetectedByThePingsAndReconnected(Vertx vertx, VertxTestContext ctx) {
        ScriptedAgents.Agent a = agents.agent(A.toString()).serves(1L);
        deploy(vertx, List.of(A), null)
                .compose(m -> event(A.toString(), "up").map(m))
                .compose(m -> {
                    a.hang(true);
                    return nextEvent(A.toString(), "down").map(down -> {
                        ctx.verify(() -> {
                            assertTrue(down.getString("reason").startsWith("no pong within 50 ms"), down.encode());
                            assertEquals("up", down.getString("previous"));
                            assertEquals(PeerState.DOWN, m.peer(A.toString()).state());
                            // Routing still knows whose volume it is, to report "agent down" rather than "no agent".
                            assertSame(m.peer(A.toString()), m.peerFor(1));
                            assertEquals(1.0, gauge(A.toString(), "down"));
                        });
                        a.hang(false);
                        return m;
                    });
                })
                .compose(m -> nextEvent(A.toString(), "up").map(m))
                .onComplete(ctx.succeeding(m -> ctx.verify(() -> {
                    assertTrue(a.connects() >= 2);
                    assertTrue(m.peer(A.toString()).isUp());
                    ctx.completeNow();
                })));
    }

    @Test
    void aLostChannelGoesDownAndBacksOffWhileTheAgentRefuses(Vertx vertx, VertxTestContext ctx) {
        ScriptedAgents.Agent a = agents.agent(A.toString()).serves(1L);
        deploy(vertx, List.of(A), null)
                .compose(m -> event(A.toString(), "up").map(m))
                .compose(m -> {
                    a.refuse(true);
                    a.drop("endpoint closed by peer");
                    return nextEvent(A.toString(), "down").map(m);
                })
                .compose(m -> {
                    // Several refused attempts stay "down" (no event per attempt), then it comes back.
                    Promise<ConnectionManagerVerticle> later = Promise.promise();
                    long timer = vertx.setPeriodic(10, t -> {
                        if (a.connects() >= 4) {
                            vertx.cancelTimer(t);
                            later.complete(m);
                        }
                    });
                    return later.future().onComplete(x -> vertx.cancelTimer(timer));
                })
                .compose(m -> {
                    ctx.verify(() -> {
                        assertEquals(1, events.stream().filter(e -> "down".equals(e.getString("state"))).count());
                        assertTrue(m.peer(A.toString()).lastError().startsWith("connect failed"),
                                m.peer(A.toString()).lastError());
                    });
                    a.refuse(false);
                    return nextEvent(A.toString(), "up");
                })
                .onComplete(ctx.succeeding(up -> ctx.verify(() -> {
                    assertEquals("down", up.getString("previous"));
                    ctx.completeNow();
                })));
    }

    @Test
    void anAgentThatNeverAnswersStartsDown(Vertx vertx, VertxTestContext ctx) {
        agents.agent(A.toString()).refuse(true);
        deploy(vertx, List.of(A), null)
                .compose(m -> event(A.toString(), "down"))
                .onComplete(ctx.succeeding(down -> ctx.verify(() -> {
                    assertEquals("connecting", down.getString("previous"));
                    assertTrue(down.getString("reason").contains("connection refused"), down.encode());
                    ctx.completeNow();
                })));
    }

    @Test
    void agentsBesideTheMastersVolumeServersAreDiscovered(Vertx vertx, VertxTestContext ctx) {
        StubMaster stub = new StubMaster(vertx);
        agents.agent("10.0.0.9:18515").serves(9L);
        stub.start()
                .compose(s -> {
                    stub.locate(9, "10.0.0.9:8080", "10.0.0.1:8080");
                    MasterClient master = new MasterClient(vertx, WebClient.create(vertx),
                            new HostPort("127.0.0.1", stub.port()), Duration.ofMinutes(1), Duration.ofSeconds(2));
                    return deploy(vertx, List.of(A), master);
                })
                .compose(m -> m.discover(9).map(m))
                .compose(m -> m.discover(9).map(m))
                .compose(m -> event("10.0.0.9:18515", "up").map(m))
                .onComplete(ctx.succeeding(m -> ctx.verify(() -> {
                    assertEquals(List.of(A.toString(), "10.0.0.9:18515"),
                            m.peers().stream().map(AgentPeer::name).toList());
                    assertSame(m.peer("10.0.0.9:18515"), m.peerFor(9));
                    assertEquals(1, stub.lookups());
                    stub.stop();
                    ctx.completeNow();
                })));
    }
}
