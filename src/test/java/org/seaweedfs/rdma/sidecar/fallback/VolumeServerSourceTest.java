package org.seaweedfs.rdma.sidecar.fallback;

import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.StubMaster;
import org.seaweedfs.rdma.sidecar.StubVolumeServer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.Fixtures;

/** The HTTP fallback against a stand-in volume server serving SeaweedFS's own fixture volumes. */
@ExtendWith(VertxExtension.class)
class VolumeServerSourceTest {

    private static final FileId FILE_2 = FileId.parse("2,0306bfd555");
    private static final FileId COMMAND_GO = FileId.parse("1,01bb51ad02");

    private StubVolumeServer primary;
    private StubVolumeServer replica;
    private StubMaster stubMaster;
    private WebClient client;

    @BeforeEach
    void start(Vertx vertx, VertxTestContext ctx) {
        primary = new StubVolumeServer(vertx);
        replica = new StubVolumeServer(vertx);
        stubMaster = new StubMaster(vertx);
        client = VolumeServerSource.newClient(vertx, 8);
        Future.all(primary.start(Fixtures.volumes()), replica.start(Fixtures.volumes()), stubMaster.start())
                .onComplete(ctx.succeedingThenComplete());
    }

    @AfterEach
    void stop(VertxTestContext ctx) {
        Future.join(primary.stop(), replica.stop(), stubMaster.stop()).onComplete(ctx.succeedingThenComplete());
    }

    private VolumeServerSource withoutMaster() {
        return new VolumeServerSource(client, null, 64L << 20, Duration.ofSeconds(5));
    }

    private VolumeServerSource withMaster(Vertx vertx) {
        return withMaster(vertx, List.of());
    }

    private VolumeServerSource withMaster(Vertx vertx, List<HostPort> volumeServers) {
        MasterClient master =
                new MasterClient(vertx, WebClient.create(vertx), new HostPort("127.0.0.1", stubMaster.port()),
                Duration.ofMinutes(1), Duration.ofSeconds(2));
        return new VolumeServerSource(client, master, volumeServers, 64L << 20, Duration.ofSeconds(5));
    }

    private VolumeServerSource withoutMaster(List<HostPort> volumeServers) {
        return new VolumeServerSource(client, null, volumeServers, 64L << 20, Duration.ofSeconds(5));
    }

    private static String sha256(NeedleContent content) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        for (Buffer b : content.chunks()) {
            md.update(b.getBytes());
        }
        return HexFormat.of().formatHex(md.digest());
    }

    private static ReadFailure.Kind kind(Throwable e) {
        return ((ReadFailure) e).kind();
    }

    @Test
    void readsTheStoredBytesWithTheirMetadata(VertxTestContext ctx) {
        withoutMaster().read(FILE_2, "http://" + primary.url() + "/").onComplete(ctx.succeeding(c -> ctx.verify(() -> {
            NeedleStat s = c.stat();
            assertEquals("e7b2ed6aadbbd58ed5c0ea34f1ff190f78b44b0c841451485c2b39fc282defa3", sha256(c));
            assertEquals(75634, s.size());
            assertEquals("4af853fb", s.etag());
            assertEquals("file_2", s.name());
            assertFalse(s.compressed());
            assertEquals("http", s.source());
            assertEquals(FILE_2, s.fid());
            ctx.completeNow();
        })));
    }

    @Test
    void aCompressedNeedleArrivesAsStored(VertxTestContext ctx) {
        withoutMaster().read(COMMAND_GO, primary.url()).onComplete(ctx.succeeding(c -> ctx.verify(() -> {
            NeedleStat s = c.stat();
            assertEquals("92fcb90c860843d6177a745084e6983dd1de47c03cc33902935359bcdc36038e", sha256(c));
            assertEquals(736, s.size());
            assertEquals("0ea166e0", s.etag());
            assertEquals("command.go", s.name());
            assertTrue(s.compressed());
            assertTrue(s.lastModified() > 0, "Last-Modified mapped");
            assertFalse(s.mime().isEmpty(), "Content-Type mapped");
            ctx.completeNow();
        })));
    }

    @Test
    void aBodyThatDoesNotMatchItsEtagIsCorruptAndNeverServed(VertxTestContext ctx) {
        primary.corruptEtag(true);
        withoutMaster().read(FILE_2, primary.url()).onComplete(ctx.failing(e -> ctx.verify(() -> {
            assertEquals(ReadFailure.Kind.CORRUPT, kind(e));
            ctx.completeNow();
        })));
    }

    @Test
    void missingKeyAndWrongCookieAreNotFound(VertxTestContext ctx) {
        VolumeServerSource source = withoutMaster();
        FileId wrongCookie = new FileId(FILE_2.volumeId(), FILE_2.key(), FILE_2.cookie() + 1);
        source.read(FileId.parse("2,7f00000000aa"), primary.url())
                .recover(e -> {
                    ctx.verify(() -> assertEquals(ReadFailure.Kind.NOT_FOUND, kind(e)));
                    return source.read(wrongCookie, primary.url());
                })
                .onComplete(ctx.failing(e -> ctx.verify(() -> {
                    assertEquals(ReadFailure.Kind.NOT_FOUND, kind(e));
                    ctx.completeNow();
                })));
    }

    @Test
    void failsOverToTheNextReplicaTheMasterLists(Vertx vertx, VertxTestContext ctx) {
        primary.failWith(500);
        stubMaster.locate(2, "127.0.0.1:1", primary.url(), replica.url());
        withMaster(vertx).read(FILE_2).onComplete(ctx.succeeding(c -> ctx.verify(() -> {
            assertEquals(75634, c.stat().size());
            assertEquals(1, primary.requests());
            assertEquals(1, replica.requests());
            ctx.completeNow();
        })));
    }

    @Test
    void theHintIsTriedBeforeTheMastersReplicas(Vertx vertx, VertxTestContext ctx) {
        stubMaster.locate(2, primary.url(), replica.url());
        withMaster(vertx).read(FILE_2, replica.url()).onComplete(ctx.succeeding(c -> ctx.verify(() -> {
            assertEquals(0, primary.requests());
            assertEquals(1, replica.requests());
            ctx.completeNow();
        })));
    }

    @Test
    void aHintTheMasterDoesNotListIsIgnored(Vertx vertx, VertxTestContext ctx) {
        stubMaster.locate(2, primary.url());
        VolumeServerSource source = withMaster(vertx);
        source.read(FILE_2, "http://" + replica.url() + "/").onComplete(ctx.succeeding(c -> ctx.verify(() -> {
            assertEquals(75634, c.stat().size());
            assertEquals(1, primary.requests());
            assertEquals(0, replica.requests(), "an unlisted hint is never fetched from");
            assertEquals(1, source.refusedHints());
            ctx.completeNow();
        })));
    }

    @Test
    void aConfiguredVolumeServerIsFollowedEvenWhenTheMasterDoesNotListIt(Vertx vertx, VertxTestContext ctx) {
        stubMaster.locate(2, primary.url());
        VolumeServerSource source = withMaster(vertx, List.of(HostPort.parse(replica.url())));
        source.read(FILE_2, replica.url()).onComplete(ctx.succeeding(c -> ctx.verify(() -> {
            assertEquals(0, primary.requests());
            assertEquals(1, replica.requests());
            assertEquals(0, source.refusedHints());
            ctx.completeNow();
        })));
    }

    @Test
    void withoutAMasterOnlyConfiguredVolumeServersAreFollowed(VertxTestContext ctx) {
        VolumeServerSource source = withoutMaster(List.of(HostPort.parse(primary.url())));
        source.read(FILE_2, replica.url())
                .recover(e -> {
                    ctx.verify(() -> {
                        assertEquals(ReadFailure.Kind.UNAVAILABLE, kind(e), "a refused hint leaves no path: 503");
                        assertEquals(0, replica.requests());
                        assertEquals(1, source.refusedHints());
                    });
                    return source.read(FILE_2, primary.url());
                })
                .onComplete(ctx.succeeding(c -> ctx.verify(() -> {
                    assertEquals(1, primary.requests());
                    ctx.completeNow();
                })));
    }

    @Test
    void everyReplicaFailingReportsTheMostTellingFailure(Vertx vertx, VertxTestContext ctx) {
        primary.corruptEtag(true);
        replica.failWith(503);
        stubMaster.locate(2, primary.url(), replica.url());
        withMaster(vertx).read(FILE_2).onComplete(ctx.failing(e -> ctx.verify(() -> {
            assertEquals(ReadFailure.Kind.CORRUPT, kind(e));
            assertEquals(1, replica.requests());
            ctx.completeNow();
        })));
    }

    @Test
    void aBadHintIsABadRequestAndNoServerAtAllIsUnavailable(VertxTestContext ctx) {
        VolumeServerSource source = withoutMaster();
        source.read(FILE_2, "https://elsewhere:443/path")
                .recover(e -> {
                    ctx.verify(() -> assertEquals(ReadFailure.Kind.BAD_REQUEST, kind(e)));
                    return source.read(FILE_2);
                })
                .onComplete(ctx.failing(e -> ctx.verify(() -> {
                    assertEquals(ReadFailure.Kind.UNAVAILABLE, kind(e));
                    ctx.completeNow();
                })));
    }

    @Test
    void parsesDispositionAndDates() {
        assertEquals("a \"b\".txt", AnswerHeaders.filename("inline; filename=\"a \\\"b\\\".txt\""));
        assertEquals("ü+x.txt", AnswerHeaders.filename("attachment; filename=\"x\"; filename*=UTF-8''%C3%BC+x.txt"));
        assertEquals("", AnswerHeaders.filename(null));
        assertEquals(784111777L, AnswerHeaders.lastModified("Sun, 06 Nov 1994 08:49:37 GMT"));
        assertEquals(0, AnswerHeaders.lastModified("yesterday"));
    }
}
