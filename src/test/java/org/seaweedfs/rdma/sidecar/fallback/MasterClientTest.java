package org.seaweedfs.rdma.sidecar.fallback;

import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.StubMaster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.config.HostPort;

@ExtendWith(VertxExtension.class)
class MasterClientTest {

    private final AtomicLong clock = new AtomicLong();
    private StubMaster stub;
    private MasterClient master;

    @BeforeEach
    void start(Vertx vertx, VertxTestContext ctx) {
        stub = new StubMaster(vertx);
        stub.start().onComplete(ctx.succeeding(s -> {
            master = new MasterClient(vertx, WebClient.create(vertx), new HostPort("127.0.0.1", s.port()),
                    Duration.ofSeconds(60), Duration.ofSeconds(2), clock::get);
            ctx.completeNow();
        }));
    }

    @AfterEach
    void stop(VertxTestContext ctx) {
        stub.stop().onComplete(ctx.succeedingThenComplete());
    }

    private static List<String> urls(VolumeServers l) {
        return l.locations().stream().map(VolumeLocation::url).toList();
    }

    @Test
    void looksUpCachesAndRefreshesAfterTheTtl(VertxTestContext ctx) {
        stub.locate(3, "10.0.0.1:8080", "10.0.0.2:8080");
        master.lookup(3)
                .compose(first -> {
                    ctx.verify(() -> assertEquals(List.of("10.0.0.1:8080", "10.0.0.2:8080"), urls(first)));
                    stub.locate(3, "10.0.0.3:8080");
                    clock.addAndGet(Duration.ofSeconds(59).toNanos());
                    return master.lookup(3);
                })
                .compose(cached -> {
                    ctx.verify(() -> {
                        assertEquals(List.of("10.0.0.1:8080", "10.0.0.2:8080"), urls(cached));
                        assertEquals(1, stub.lookups());
                    });
                    clock.addAndGet(Duration.ofSeconds(2).toNanos());
                    return master.lookup(3);
                })
                .onComplete(ctx.succeeding(refreshed -> ctx.verify(() -> {
                    assertEquals(List.of("10.0.0.3:8080"), urls(refreshed));
                    assertEquals(2, stub.lookups());
                    ctx.completeNow();
                })));
    }

    @Test
    void concurrentLookupsShareOneRequestAndCompleteOnTheCallersContext(Vertx vertx, VertxTestContext ctx) {
        stub.locate(5, "10.0.0.5:8080");
        Context a = vertx.getOrCreateContext();
        Context b = vertx.getOrCreateContext();
        var checkpoint = ctx.checkpoint(2);
        for (Context c : List.of(a, b)) {
            c.runOnContext(v -> master.lookup(5).onComplete(ctx.succeeding(l -> ctx.verify(() -> {
                assertSame(c, Vertx.currentContext());
                assertEquals(1, stub.lookups());
                checkpoint.flag();
            }))));
        }
    }

    @Test
    void unknownVolumeIsNotFoundAndFailuresAreNotCachedForLong(VertxTestContext ctx) {
        master.lookup(7)
                .recover(e -> {
                    ctx.verify(() -> assertEquals(ReadFailure.Kind.NOT_FOUND, ((ReadFailure) e).kind()));
                    stub.locate(7, "10.0.0.7:8080");
                    clock.addAndGet(Duration.ofSeconds(2).toNanos());
                    return master.lookup(7);
                })
                .onComplete(ctx.succeeding(l -> ctx.verify(() -> {
                    assertEquals(List.of("10.0.0.7:8080"), urls(l));
                    ctx.completeNow();
                })));
    }

    @Test
    void aMasterOutageKeepsServingTheStaleAnswer(VertxTestContext ctx) {
        stub.locate(4, "10.0.0.4:8080");
        master.lookup(4)
                .compose(l -> {
                    stub.failWith(500);
                    clock.addAndGet(Duration.ofMinutes(2).toNanos());
                    return master.lookup(4);
                })
                .compose(stale -> {
                    ctx.verify(() -> {
                        assertEquals(List.of("10.0.0.4:8080"), urls(stale));
                        assertEquals(2, stub.lookups());
                    });
                    master.invalidate(4);
                    return master.lookup(4);
                })
                .onComplete(ctx.failing(e -> ctx.verify(() -> {
                    assertEquals(ReadFailure.Kind.UNAVAILABLE, ((ReadFailure) e).kind());
                    ctx.completeNow();
                })));
    }

    @Test
    void unreachableMasterIsUnavailable(Vertx vertx, VertxTestContext ctx) {
        stub.stop().compose(v ->
                new MasterClient(vertx, WebClient.create(vertx), new HostPort("127.0.0.1", stub.port()),
                        Duration.ofSeconds(1), Duration.ofSeconds(2)).lookup(1))
                .onComplete(ctx.failing(e -> ctx.verify(() -> {
                    assertEquals(ReadFailure.Kind.UNAVAILABLE, ((ReadFailure) e).kind());
                    ctx.completeNow();
                })));
    }

    @Test
    void parsesTheDocumentedAnswerAndRejectsMalformedOnes() {
        VolumeServers l = VolumeServers.parse(3, new JsonObject(
                "{\"volumeOrRootId\":\"3\",\"locations\":[{\"url\":\"http://h1:8080/\",\"publicUrl\":\"p1:80\"},"
                        + "{\"url\":\"h2:8080\"}]}"));
        assertEquals(List.of(new VolumeLocation("h1:8080", "p1:80"), new VolumeLocation("h2:8080", "h2:8080")),
                l.locations());
        assertEquals("h1", l.locations().get(0).host());
        assertEquals("::1", new VolumeLocation("[::1]:8080", null).host());
        assertThrows(IllegalArgumentException.class,
                () -> VolumeServers.parse(3, new JsonObject("{\"volumeOrRootId\":\"3\"}")));
        assertThrows(IllegalArgumentException.class,
                () -> VolumeServers.parse(3, new JsonObject("{\"locations\":[{\"publicUrl\":\"x:1\"}]}")));
        assertThrows(IllegalArgumentException.class,
                () -> VolumeServers.parse(3, new JsonObject("{\"locations\":[{\"url\":\"h/x:1\"}]}")));
        assertThrows(IllegalArgumentException.class,
                () -> VolumeServers.parse(3, new JsonObject("{\"error\":\"volume id 3 not found\"}")));
        assertThrows(IllegalArgumentException.class, () -> new VolumeLocation("ftp://h:1", null));
        // The scheme is the configuration's (sidecar.securityToml), not the URL's.
        assertEquals("h:1", new VolumeLocation("HTTPS://h:1/", null).url());
    }

}
