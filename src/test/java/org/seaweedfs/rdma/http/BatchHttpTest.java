package org.seaweedfs.rdma.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;
import static org.seaweedfs.rdma.testing.Await.until;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.sidecar.Admission;
import org.seaweedfs.rdma.config.SidecarConfig;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.metrics.ReadTally;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.testing.TarEntries;
import org.seaweedfs.rdma.volume.FileId;

/**
 * {@code POST /batch}'s bounds and flow control, over the in-memory read path (the real stack's answers are checked
 * byte for byte in BatchEndToEndTest): refusals that read nothing, chunk manifests served as GET serves them, and a
 * client that stops reading, which stops the batch's reads while the sidecar goes on serving others.
 */
class BatchHttpTest extends HttpApiTestBase {

    private static final SidecarConfig.Batch BOUNDS = new SidecarConfig.Batch(100, 4096, 4, 1 << 20);
    private static final int BIG = 1 << 20;

    private final AtomicInteger started = new AtomicInteger();
    private WebClient batchClient;
    private int batchPort;

    /** A second listener over the same needles, with small bounds, whose reads are counted. */
    @BeforeEach
    void deployBounded() throws Exception {
        NeedleSource counting = new NeedleSource() {
            @Override
            public Future<NeedleStat> stat(FileId fid) {
                return source.stat(fid);
            }

            @Override
            public Future<NeedleContent> read(FileId fid) {
                started.incrementAndGet();
                return source.read(fid);
            }
        };
        HttpApiContext bounded = new HttpApiContext(counting, status, api.http(), api.maxNeedleBytes(),
                new Admission(64), api.meters(), null, new ConnectionBounds(api.http(), ReadMeters.nowhere()), counting,
                null, null, BOUNDS);
        HttpApiVerticle verticle = new HttpApiVerticle(bounded);
        vertx.deployVerticle(verticle).await(10, TimeUnit.SECONDS);
        batchPort = verticle.actualPort();
        batchClient = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1")
                .setDefaultPort(batchPort));
    }

    private HttpResponse<Buffer> post(String body) {
        return await(batchClient.post("/batch").sendBuffer(Buffer.buffer(body)));
    }

    private static String lines(int n) {
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < n; i++) {
            body.append(FID).append('\n');
        }
        return body.toString();
    }

    @Test
    void tooManyFidsOrTooLargeABodyAnswer413AndReadNothing() {
        HttpResponse<Buffer> tooMany = post(lines(101));
        assertEquals(413, tooMany.statusCode());
        assertTrue(tooMany.bodyAsJsonObject().getString("error").contains("sidecar.batch.maxFids"));
        HttpResponse<Buffer> tooLarge = post(FID + "\n" + " ".repeat(4096));
        assertEquals(413, tooLarge.statusCode());
        assertTrue(tooLarge.bodyAsJsonObject().getString("error").contains("sidecar.batch.maxRequestBytes"));
        assertEquals(0, started.get(), "nothing was read");
        HttpResponse<Buffer> enough = post(lines(100));
        assertEquals(200, enough.statusCode());
        assertEquals(100, TarEntries.read(enough.body().getBytes()).size());
        assertAllReleased();
    }

    @Test
    void aMalformedLineAnswers400NamingItAndReadsNothing() {
        Map<String, String> bodies = Map.of(
                FID + "\n3,zz\n", "line 2: ",
                FID + "\r\n\r\n" + FID + " token extra\n", "line 3: expected '<fid>' or '<fid> <jwt>'",
                "/3,01637037d6\n", "line 1: ");
        bodies.forEach((body, start) -> {
            HttpResponse<Buffer> r = post(body);
            assertEquals(400, r.statusCode(), body);
            assertTrue(r.bodyAsJsonObject().getString("error").startsWith(start), r.bodyAsString());
        });
        assertEquals(0, started.get(), "nothing was read");
    }

    @Test
    void aChunkManifestIsServedAsGetServesItAndAMissingNeedleIsAnErrorMember() {
        FileId empty = FileId.parse("4,0a0000000b");
        source.putManifest(empty, "{\"chunks\":[]}".getBytes());
        FileId unparsable = FileId.parse("4,0b0000000c");
        source.putManifest(unparsable, "not json".getBytes());
        FileId gone = FileId.parse("5,0c0000000d");
        ReadTally tally = api.meters().tally();
        long reads = tally.reads();
        long failed = tally.failed();
        List<TarEntries.Entry> entries = TarEntries.read(
                post(empty + "\n" + gone + "\n" + unparsable + "\n" + FID + "\n").body().getBytes());
        assertEquals(List.of(empty.toString(), gone + ".error", unparsable.toString(), FID.toString()),
                entries.stream().map(TarEntries.Entry::name).toList());
        assertEquals(reads + 4, tally.reads(), "every member counted as a read, when the batch ended");
        assertEquals(failed + 1, tally.failed(), "the error member");
        assertEquals("0", await(get("/" + empty).send()).getHeader("Content-Length"), "GET: no chunks, an empty file");
        assertEquals(0, entries.get(0).data().length, "no chunks: an empty file, as GET");
        assertEquals(404, new JsonObject(entries.get(1).text()).getInteger("status"));
        assertEquals("not json", new String(entries.get(2).data()), "unparsable: served as stored, as GET");
        assertArrayEquals(TEXT, entries.get(3).data());
        assertEquals(LAST_MODIFIED, entries.get(3).mtime());
        assertAllReleased();
    }

    @Test
    void aClientThatStopsReadingStopsTheBatchAndHoldsNoMoreThanTheWindow() {
        int count = 64;
        List<byte[]> datas = new ArrayList<>();
        StringBuilder body = new StringBuilder();
        Random random = new Random(7);
        for (int i = 0; i < count; i++) {
            FileId fid = new FileId(6, i + 1, 0x77);
            byte[] data = new byte[BIG];
            random.nextBytes(data);
            source.put(fid, data, "", "", 0, Map.of());
            datas.add(data);
            body.append(fid).append('\n');
        }
        HttpClient http = vertx.createHttpClient();
        Buffer received = Buffer.buffer();
        HttpClientResponse response = await(http.request(new RequestOptions().setMethod(HttpMethod.POST)
                .setHost("127.0.0.1").setPort(batchPort).setURI("/batch"))
                .compose(req -> req.send(Buffer.buffer(body.toString())))
                .map(r -> { // on the event loop, before any of the body is delivered
                    r.pause();
                    r.handler(received::appendBuffer);
                    return r;
                }));
        Future<Void> end = response.end();
        // Wait until the batch stalls: the socket's buffers are full and the sidecar stopped reading needles.
        int[] last = {-1};
        until("the batch stopped reading", () -> {
            int now = started.get();
            boolean still = now == last[0];
            last[0] = now;
            if (!still) {
                sleep(300);
            }
            return still;
        });
        assertTrue(started.get() < count, "the batch stopped reading before its end: " + started.get() + " read");
        assertTrue(source.unreleased() <= BOUNDS.window(),
                "needles held: " + source.unreleased() + ", window " + BOUNDS.window());
        assertEquals(200, await(get("/" + FID).send()).statusCode(), "the sidecar goes on serving");
        response.resume();
        await(end);
        List<TarEntries.Entry> entries = TarEntries.read(received.getBytes());
        assertEquals(count, entries.size());
        for (int i = 0; i < count; i++) {
            assertArrayEquals(datas.get(i), entries.get(i).data(), "member " + i);
        }
        assertEquals(count, started.get());
        assertAllReleased();
        await(http.close());
    }

    @Test
    void aClosedConnectionCancelsTheRestAndReleasesEverything() {
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < 64; i++) {
            FileId fid = new FileId(7, i + 1, 0x77);
            source.put(fid, new byte[BIG], "", "", 0, Map.of());
            body.append(fid).append('\n');
        }
        HttpClient http = vertx.createHttpClient();
        HttpClientResponse response = await(http.request(new RequestOptions().setMethod(HttpMethod.POST)
                .setHost("127.0.0.1").setPort(batchPort).setURI("/batch"))
                .compose(req -> req.send(Buffer.buffer(body.toString()))).map(r -> r.pause()));
        until("the batch started", () -> started.get() > 0);
        await(http.close());
        assertAllReleased();
        assertTrue(started.get() < 64, "reads stopped with the connection: " + started.get());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
