package org.seaweedfs.rdma.sidecar.fallback;

import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.StubMaster;
import org.seaweedfs.rdma.sidecar.StubVolumeServer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.Fixtures;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NeedleRecord;
import org.seaweedfs.rdma.volume.Volume;
import org.seaweedfs.rdma.volume.VolumeDirectory;
import org.seaweedfs.rdma.volume.VolumeFiles;

/** Slices over the HTTP fallback: Range requests to a stand-in volume server serving the fixture volumes. */
@ExtendWith(VertxExtension.class)
class VolumeServerSourceSliceTest {

    private static final FileId FILE_2 = FileId.parse("2,0306bfd555");
    private static final int FILE_2_SIZE = 75634;
    private static final FileId COMMAND_GO = FileId.parse("1,01bb51ad02");
    private static final long MAX = 64L << 20;

    private StubVolumeServer primary;
    private StubVolumeServer replica;
    private StubMaster stubMaster;
    private WebClient client;

    @BeforeEach
    void start(Vertx vertx) {
        primary = new StubVolumeServer(vertx);
        replica = new StubVolumeServer(vertx);
        stubMaster = new StubMaster(vertx);
        client = VolumeServerSource.newClient(vertx, 8);
        await(Future.all(primary.start(Fixtures.volumes()), replica.start(Fixtures.volumes()), stubMaster.start()));
    }

    @AfterEach
    void stop() {
        await(Future.join(primary.stop(), replica.stop(), stubMaster.stop()));
    }

    private VolumeServerSource withoutMaster() {
        return new VolumeServerSource(client, null, MAX, Duration.ofSeconds(5));
    }

    private VolumeServerSource withMaster(Vertx vertx, List<HostPort> volumeServers) {
        MasterClient master =
                new MasterClient(vertx, WebClient.create(vertx), new HostPort("127.0.0.1", stubMaster.port()),
                Duration.ofMinutes(1), Duration.ofSeconds(2));
        return new VolumeServerSource(client, master, volumeServers, MAX, Duration.ofSeconds(5));
    }

    private static ReadFailure failure(Future<?> future) {
        Throwable e = assertThrows(Throwable.class, () -> await(future));
        return assertInstanceOf(ReadFailure.class, e instanceof CompletionException ? e.getCause() : e);
    }

    private static byte[] bytes(NeedleContent content) {
        Buffer all = Buffer.buffer();
        content.chunks().forEach(all::appendBuffer);
        content.release();
        return all.getBytes();
    }

    /** The needle's plain bytes straight from the fixture volume (not through HTTP). */
    private static byte[] plain(FileId fid) throws IOException {
        VolumeFiles files = VolumeDirectory.scan(Fixtures.volumes()).volumes().stream()
                .filter(f -> f.volumeId() == fid.volumeId()).findFirst().orElseThrow();
        try (Volume volume = Volume.open(files, IndexFormat.OFFSET4)) {
            NeedleRecord needle = volume.read(fid, System.currentTimeMillis()).orElseThrow();
            ByteBuffer data = needle.data().duplicate();
            byte[] stored = new byte[data.remaining()];
            data.get(stored);
            if (!needle.meta().isCompressed()) {
                return stored;
            }
            try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(stored))) {
                return in.readAllBytes();
            }
        }
    }

    @Test
    void slicesAtTheStartMiddleAndEndFetchOnlyTheirRange() throws IOException {
        byte[] file2 = plain(FILE_2);
        VolumeServerSource source = withoutMaster();

        NeedleContent start = await(source.readSlice(FILE_2, primary.url(), 0, 100, MAX));
        NeedleStat stat = start.stat();
        assertArrayEquals(Arrays.copyOf(file2, 100), bytes(start));
        assertEquals(FILE_2_SIZE, stat.size(), "the whole needle's length, from Content-Range");
        assertEquals("4af853fb", stat.etag());
        assertEquals("file_2", stat.name());
        assertEquals("http", stat.source());
        assertFalse(stat.compressed());
        assertArrayEquals(Arrays.copyOfRange(file2, 1000, 1500),
                bytes(await(source.readSlice(FILE_2, primary.url(), 1000, 500, MAX))));
        assertArrayEquals(Arrays.copyOfRange(file2, FILE_2_SIZE - 10, FILE_2_SIZE),
                bytes(await(source.readSlice(FILE_2, primary.url(), FILE_2_SIZE - 10, 100, MAX))),
                        "cut short at the end");
        assertArrayEquals(Arrays.copyOfRange(file2, 70000, FILE_2_SIZE),
                bytes(await(source.readSlice(FILE_2, primary.url(), 70000, -1, MAX))), "to the end");

        assertEquals(List.of("bytes=0-99", "bytes=1000-1499", "bytes=75624-75723", "bytes=70000-"), primary.ranges());
        assertEquals(100 + 500 + 10 + (FILE_2_SIZE - 70000), primary.bodyBytes(), "never the whole needle");
    }

    @Test
    void aCompressedNeedleIsSlicedInItsDecompressedBytes() throws IOException {
        byte[] commandGo = plain(COMMAND_GO);
        NeedleContent slice = await(withoutMaster().readSlice(COMMAND_GO, primary.url(), 12, 50, MAX));
        NeedleStat stat = slice.stat();
        assertArrayEquals(Arrays.copyOfRange(commandGo, 12, 62), bytes(slice));
        assertEquals(commandGo.length, stat.size());
        assertFalse(stat.compressed(), "the bytes are plain");
        assertEquals("0ea166e0", stat.etag(), "the ETag stays the stored data's CRC");
        assertEquals(List.of("bytes=12-61"), primary.ranges());
    }

    @Test
    void aSliceAtTheEndIsEmptyAndOnePastItIs416() {
        VolumeServerSource source = withoutMaster();
        NeedleContent atEnd = await(source.readSlice(FILE_2, primary.url(), FILE_2_SIZE, 4, MAX));
        assertEquals(0, bytes(atEnd).length);
        assertEquals(FILE_2_SIZE, atEnd.stat().size());
        assertEquals(0, bytes(await(source.readSlice(FILE_2, primary.url(), 5, 0, MAX))).length, "a zero length");

        ReadFailure past = failure(source.readSlice(FILE_2, primary.url(), FILE_2_SIZE + 1, 4, MAX));
        assertEquals(ReadFailure.Kind.RANGE_NOT_SATISFIABLE, past.kind());
        assertEquals(FILE_2_SIZE, past.needleSize());
        assertTrue(past.getMessage().startsWith("offset: "), past.getMessage());
        assertEquals(List.of("bytes=75634-75637", "bytes=0-0", "bytes=5-5", "bytes=75635-75638", "bytes=0-0"),
                primary.ranges(), "a 416 carries no length: one byte from the start tells it");
    }

    @Test
    void aMissingNeedleIsNotFoundAndATooLargeOneIsRefused() {
        VolumeServerSource source = withoutMaster();
        assertEquals(ReadFailure.Kind.NOT_FOUND,
                failure(source.readSlice(FileId.parse("2,7f00000000aa"), primary.url(), 0, 10, MAX)).kind());
        assertEquals(ReadFailure.Kind.NOT_FOUND, failure(source.readSlice(
                new FileId(FILE_2.volumeId(), FILE_2.key(), FILE_2.cookie() + 1), primary.url(), 0, 10, MAX)).kind());
        assertEquals(ReadFailure.Kind.TOO_LARGE, failure(source.readSlice(FILE_2, primary.url(), 0, 10, 1000)).kind(),
                "a slice of a needle above sidecar.maxNeedleBytes fails as the whole read would");
    }

    @Test
    void failsOverToTheNextReplicaWithTheSameRange(Vertx vertx) throws IOException {
        primary.failWith(500);
        stubMaster.locate(2, "127.0.0.1:1", primary.url(), replica.url());
        NeedleContent slice = await(withMaster(vertx, List.of()).readSlice(FILE_2, null, 1000, 500, MAX));
        assertArrayEquals(Arrays.copyOfRange(plain(FILE_2), 1000, 1500), bytes(slice));
        assertEquals(List.of("bytes=1000-1499"), primary.ranges());
        assertEquals(List.of("bytes=1000-1499"), replica.ranges());
        assertEquals(500, replica.bodyBytes());
    }

    @Test
    void aHintIsFollowedOnlyWhenListedOrConfigured(Vertx vertx) {
        stubMaster.locate(2, primary.url());
        VolumeServerSource unlisted = withMaster(vertx, List.of());
        bytes(await(unlisted.readSlice(FILE_2, "http://" + replica.url() + "/", 0, 10, MAX)));
        assertEquals(0, replica.requests(), "an unlisted hint is never fetched from");
        assertEquals(1, unlisted.refusedHints());
        assertEquals(List.of("bytes=0-9"), primary.ranges());

        VolumeServerSource configured = withMaster(vertx, List.of(HostPort.parse(replica.url())));
        bytes(await(configured.readSlice(FILE_2, replica.url(), 0, 10, MAX)));
        assertEquals(List.of("bytes=0-9"), replica.ranges());
        assertEquals(0, configured.refusedHints());
    }

    @Test
    void aServerThatIgnoresRangesIsCutHere() throws IOException {
        primary.ignoreRanges(true);
        VolumeServerSource source = withoutMaster();
        NeedleContent slice = await(source.readSlice(COMMAND_GO, primary.url(), 12, 50, MAX));
        byte[] commandGo = plain(COMMAND_GO);
        assertEquals(commandGo.length, slice.stat().size());
        assertArrayEquals(Arrays.copyOfRange(commandGo, 12, 62), bytes(slice));
        ReadFailure past = failure(source.readSlice(FILE_2, primary.url(), FILE_2_SIZE + 1, 4, MAX));
        assertEquals(ReadFailure.Kind.RANGE_NOT_SATISFIABLE, past.kind());
        assertEquals(FILE_2_SIZE, past.needleSize());
    }

    @Test
    void aContentRangeOtherThanTheOneAskedIsRefused(Vertx vertx) {
        HttpServer liar = vertx.createHttpServer().requestHandler(r -> r.response().setStatusCode(206)
                .putHeader("Content-Range", "bytes 0-3/10").putHeader("ETag", "\"00000001\"").end("abcd"));
        await(liar.listen(0, "127.0.0.1"));
        try {
            ReadFailure f = failure(withoutMaster().readSlice(FILE_2, "127.0.0.1:" + liar.actualPort(), 2, 4, MAX));
            assertEquals(ReadFailure.Kind.UNAVAILABLE, f.kind(), f.getMessage());
        } finally {
            await(liar.close());
        }
    }

    @Test
    void theWholeNeedleIsReadAsStoredAndCheckedAgainstItsEtag(Vertx vertx) {
        primary.corruptEtag(true);
        Supplier<Future<NeedleContent>> whole = () -> withoutMaster().readSlice(FILE_2, primary.url(), 0, -1, MAX);
        Promise<NeedleContent> read = Promise.promise();
        vertx.getOrCreateContext().runOnContext(v -> whole.get().onComplete(read));
        assertEquals(ReadFailure.Kind.CORRUPT, failure(read.future()).kind());
        assertEquals(List.of(), primary.ranges(), "no Range: the sidecar verifies the whole body");
    }
}
