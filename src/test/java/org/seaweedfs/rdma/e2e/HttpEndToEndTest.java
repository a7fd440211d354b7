package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.junit5.VertxExtension;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.testing.PrometheusText;
import org.seaweedfs.rdma.volume.FileId;

/**
 * The sidecar's HTTP API against the real stack: an agent serving SeaweedFS's own volume files over UCX, a
 * sidecar in another Vert.x instance reading them with UCX gets. Every answer is checked against the files.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith({VertxExtension.class, SharedStack.class})
class HttpEndToEndTest {

    private static final DateTimeFormatter HTTP_DATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM uuuu HH:mm:ss 'GMT'", Locale.US)
            .withZone(ZoneOffset.UTC);
    /** Fixture README: file_2 of volume 2, 75634 bytes, not compressed, raw checksum. */
    private static final String FILE_2 = "2,0306bfd555";
    /** Fixture README: command.go of volume 1, gzip-compressed. */
    private static final String COMMAND_GO = "1,01bb51ad02";

    private WebClient client;
    private List<FixtureNeedles.Expected> volume1;
    private List<FixtureNeedles.Expected> volume2;

    @BeforeAll
    void connect(Vertx vertx) {
        SharedStack.Running stack = SharedStack.get();
        client = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1")
                .setDefaultPort(stack.sidecar.httpPort()).setDecompressionSupported(false));
        volume1 = FixtureNeedles.live(stack.volumes, 1);
        volume2 = FixtureNeedles.live(stack.volumes, 2);
    }

    private HttpResponse<Buffer> send(HttpRequest<Buffer> request) {
        return await(request.send());
    }

    private HttpResponse<Buffer> get(String uri) {
        return send(client.request(HttpMethod.GET, uri));
    }

    private FixtureNeedles.Expected expected(String fid) {
        FileId id = FileId.parse(fid);
        return (id.volumeId() == 1 ? volume1 : volume2).stream().filter(e -> e.fid().equals(id)).findFirst()
                .orElseThrow();
    }

    private static byte[] body(HttpResponse<Buffer> r) {
        return r.body() == null ? new byte[0] : r.body().getBytes();
    }

    @Test
    void everyLiveNeedleOfVolumes1And2IsServedOverRdmaAsTheVolumeServerWould() {
        assertEquals(298, volume1.size(), "fixture README: live needles of volume 1");
        assertEquals(7, volume2.size(), "fixture README: live needles of volume 2");
        for (FixtureNeedles.Expected e : concat(volume1, volume2)) {
            HttpResponse<Buffer> r = get("/" + e.fid());
            String what = e.fid() + " (" + e.name() + ")";
            assertEquals(200, r.statusCode(), what);
            assertArrayEquals(e.plain(), body(r), what);
            assertEquals("\"" + e.etag() + "\"", r.getHeader("ETag"), what);
            assertEquals("rdma", r.getHeader("X-Source"), what);
            assertEquals("bytes", r.getHeader("Accept-Ranges"), what);
            assertEquals(Integer.toString(e.plain().length), r.getHeader("Content-Length"), what);
            assertNull(r.getHeader("Content-Encoding"), what);
            if (e.lastModified() != 0) {
                assertEquals(HTTP_DATE.format(Instant.ofEpochSecond(e.lastModified())), r.getHeader("Last-Modified"),
                        what);
            }
            if (!e.name().isEmpty()) {
                assertTrue(r.getHeader("Content-Disposition").startsWith("inline; filename"), what);
            }
            if (e.compressed()) {
                HttpResponse<Buffer> gz = send(client.request(HttpMethod.GET, "/" + e.fid())
                        .putHeader("Accept-Encoding", "gzip"));
                assertEquals(200, gz.statusCode(), what);
                assertEquals("gzip", gz.getHeader("Content-Encoding"), what);
                assertArrayEquals(e.stored(), body(gz), what + " as stored");
                assertEquals("\"" + e.etag() + "\"", gz.getHeader("ETag"), what);
            }
        }
    }

    @Test
    void contentTypeComesFromTheStoredMimeOrTheName() {
        FixtureNeedles.Expected withMime = volume1.stream()
                .filter(e -> !e.mime().isEmpty() && !e.mime().startsWith("application/octet-stream"))
                .findFirst().orElseThrow();
        assertEquals(withMime.mime(), get("/" + withMime.fid()).getHeader("Content-Type"));
        // Volume 2 stores no mimes: the file name in the URL decides, as on the volume server.
        HttpResponse<Buffer> named = get("/2/0306bfd555/report.pdf");
        assertEquals(200, named.statusCode());
        assertEquals("application/pdf", named.getHeader("Content-Type"));
        assertEquals("inline; filename=report.pdf", named.getHeader("Content-Disposition"));
        assertArrayEquals(expected(FILE_2).plain(), body(named));
        assertEquals("attachment; filename=file_2", get("/2/0306bfd555?dl=true").getHeader("Content-Disposition"));
        assertEquals("attachment; filename=command.go",
                get("/" + COMMAND_GO + "?dl=true").getHeader("Content-Disposition"));
    }

    @Test
    void headAnswersTheHeadersOfGetWithoutABody() {
        FixtureNeedles.Expected e = expected(FILE_2);
        HttpResponse<Buffer> r = send(client.request(HttpMethod.HEAD, "/" + FILE_2));
        assertEquals(200, r.statusCode());
        assertEquals(Integer.toString(e.plain().length), r.getHeader("Content-Length"));
        assertEquals("\"" + e.etag() + "\"", r.getHeader("ETag"));
        assertEquals("rdma", r.getHeader("X-Source"));
        assertEquals(0, body(r).length);
    }

    @Test
    void singleRangeIs206AndSeveralAreMultipart() {
        byte[] data = expected(FILE_2).plain();
        HttpResponse<Buffer> one =
                send(client.request(HttpMethod.GET, "/" + FILE_2).putHeader("Range", "bytes=100-199"));
        assertEquals(206, one.statusCode());
        assertEquals("bytes 100-199/" + data.length, one.getHeader("Content-Range"));
        assertArrayEquals(Arrays.copyOfRange(data, 100, 200), body(one));

        HttpResponse<Buffer> suffix =
                send(client.request(HttpMethod.GET, "/" + FILE_2).putHeader("Range", "bytes=-16"));
        assertEquals(206, suffix.statusCode());
        assertArrayEquals(Arrays.copyOfRange(data, data.length - 16, data.length), body(suffix));

        // Ranges of a compressed needle count the decompressed bytes.
        byte[] go = expected(COMMAND_GO).plain();
        HttpResponse<Buffer> plainRange =
                send(client.request(HttpMethod.GET, "/" + COMMAND_GO).putHeader("Range", "bytes=10-59"));
        assertEquals(206, plainRange.statusCode());
        assertArrayEquals(Arrays.copyOfRange(go, 10, 60), body(plainRange));

        HttpResponse<Buffer> two =
                send(client.request(HttpMethod.GET, "/" + FILE_2).putHeader("Range", "bytes=0-9,70000-70009"));
        assertEquals(206, two.statusCode());
        String type = two.getHeader("Content-Type");
        assertTrue(type.startsWith("multipart/byteranges; boundary="), type);
        String boundary = type.substring(type.indexOf('=') + 1);
        String text = new String(body(two), StandardCharsets.ISO_8859_1);
        assertEquals(3, text.split("--" + boundary, -1).length - 1, "two parts and the closing delimiter");
        assertTrue(text.contains("Content-Range: bytes 0-9/" + data.length + "\r\n"));
        assertTrue(text.contains("Content-Range: bytes 70000-70009/" + data.length + "\r\n"));
        assertTrue(text.contains("\r\n\r\n" + new String(data, 0, 10, StandardCharsets.ISO_8859_1) + "\r\n--"
                + boundary));
        assertTrue(text.contains("\r\n\r\n" + new String(data, 70000, 10, StandardCharsets.ISO_8859_1) + "\r\n--"
                + boundary + "--"));
        assertEquals(Integer.toString(body(two).length), two.getHeader("Content-Length"));

        HttpResponse<Buffer> none =
                send(client.request(HttpMethod.GET, "/" + FILE_2).putHeader("Range", "bytes=80000-90000"));
        assertEquals(416, none.statusCode());
        assertEquals("bytes */" + data.length, none.getHeader("Content-Range"));
    }

    @Test
    void conditionalRequestsAnswer304() {
        FixtureNeedles.Expected e = concat(volume1, volume2).stream().filter(x -> x.lastModified() != 0).findFirst()
                .orElseThrow();
        HttpResponse<Buffer> etag = send(client.request(HttpMethod.GET, "/" + e.fid())
                .putHeader("If-None-Match", "\"" + e.etag() + "\""));
        assertEquals(304, etag.statusCode());
        assertEquals(0, body(etag).length);
        String lastModified = HTTP_DATE.format(Instant.ofEpochSecond(e.lastModified()));
        assertEquals(304, send(client.request(HttpMethod.GET, "/" + e.fid())
                .putHeader("If-Modified-Since", lastModified)).statusCode());
        assertEquals(200, send(client.request(HttpMethod.GET, "/" + e.fid())
                .putHeader("If-None-Match", "\"00000000\"")).statusCode());
        assertEquals(200, send(client.request(HttpMethod.GET, "/" + e.fid())
                .putHeader("If-Modified-Since", HTTP_DATE.format(Instant.ofEpochSecond(e.lastModified() - 1))))
                .statusCode());
    }

    @Test
    void missingDeletedAndWrongCookieAreEmpty404() {
        List<FileId> deleted = FixtureNeedles.deleted(SharedStack.get().volumes, 2);
        assertEquals(10, deleted.size(), "fixture README: volume 2 deleted 10 needles");
        for (FileId fid : deleted) {
            HttpResponse<Buffer> r = get("/" + fid);
            assertEquals(404, r.statusCode(), fid.toString());
            assertEquals(0, body(r).length, fid.toString());
        }
        for (String uri : List.of("/2,7777777712345678", "/2,0306bfd556", "/1/01bb51ad03/command.go")) {
            HttpResponse<Buffer> r = get(uri);
            assertEquals(404, r.statusCode(), uri);
            assertEquals(0, body(r).length, uri);
        }
    }

    @Test
    void malformedIdsAre400Json() {
        for (String uri : List.of("/2,xyz", "/abc,0306bfd555", "/2,0306", "/2/0306bfd555zz",
                "/read?file_id=2,xyz", "/read?file_id=" + FILE_2 + "&offset=-1", "/read")) {
            HttpResponse<Buffer> r = get(uri);
            assertEquals(400, r.statusCode(), uri);
            JsonObject error = r.bodyAsJsonObject();
            assertEquals(400, error.getInteger("code"), uri);
            assertFalse(error.getString("error").isEmpty(), uri);
        }
    }

    @Test
    void readAnswersTheSliceBytesExactlyAsWeedMountAsksForThem() {
        for (String fid : List.of(FILE_2, COMMAND_GO, "2,08578634e1")) {
            byte[] data = expected(fid).plain();
            int n = data.length;
            int middle = Math.min(4096, n / 3);
            int[][] slices = {{0, 100}, {0, n}, {middle, Math.min(8192, n - middle)}, {n - 10, 10}, {n - 10, 4096},
                    {n - 1, 1}, {n / 2, n - n / 2}, {n, 10}};
            for (int[] s : slices) {
                String uri = "/read?file_id=" + fid + "&offset=" + s[0] + "&size=" + s[1]
                        + "&volume_server=http://127.0.0.1:8080";
                HttpResponse<Buffer> r = get(uri);
                assertEquals(200, r.statusCode(), uri);
                int end = Math.min(n, s[0] + s[1]);
                assertArrayEquals(Arrays.copyOfRange(data, s[0], end), body(r), uri);
                assertEquals("true", r.getHeader("X-RDMA-Used"), uri);
                assertTrue(r.getHeader("X-Source").contains("rdma"), uri);
                assertEquals(Integer.toString(end - s[0]), r.getHeader("Content-Length"), uri);
            }
            assertEquals(416, get("/read?file_id=" + fid + "&offset=" + (n + 1) + "&size=10").statusCode());
        }
        assertEquals(404, get("/read?file_id=2,0306bfd556&offset=0&size=10").statusCode());
    }

    @Test
    void healthSaysHealthyWithRdmaConnected() {
        HttpResponse<Buffer> r = get("/health");
        assertEquals(200, r.statusCode());
        JsonObject health = r.bodyAsJsonObject();
        assertEquals("healthy", health.getString("status"));
        assertTrue(health.getJsonObject("rdma").getBoolean("enabled"));
        assertTrue(health.getJsonObject("rdma").getBoolean("connected"));
    }

    @Test
    void statusListsTheAgentItsVolumesAndCachedLocations() {
        assertEquals(200, get("/" + FILE_2).statusCode());
        HttpResponse<Buffer> r = get("/status");
        assertEquals(200, r.statusCode());
        JsonObject status = r.bodyAsJsonObject();
        JsonArray agents = status.getJsonArray("agents");
        assertEquals(1, agents.size(), status.encodePrettily());
        JsonObject agent = agents.getJsonObject(0);
        String address = "127.0.0.1:" + SharedStack.get().agent.agentPort();
        assertEquals(address, agent.getString("address"));
        assertEquals("up", agent.getString("state"));
        assertEquals("closed", agent.getString("breaker"));
        assertEquals(new JsonArray(List.of(1, 2, 3)), agent.getJsonArray("volumes"));
        long cached = agent.getLong("needles");
        assertTrue(cached >= 1 && cached <= 298 + 7, "locations cached from the agent: " + cached);
        assertEquals(new JsonArray(List.of(address)), status.getJsonObject("volumes").getJsonArray("1"));
    }

    @Test
    void metricsAreThePrometheusTextOfTheReadPathBreakersAndUcx() {
        assertEquals(200, get("/" + FILE_2).statusCode());
        HttpResponse<Buffer> batch = await(client.post("/batch").sendBuffer(Buffer.buffer(FILE_2 + "\n" + FILE_2
                + "\n")));
        assertEquals(200, batch.statusCode());
        HttpResponse<Buffer> r = get("/metrics");
        assertEquals(200, r.statusCode());
        String text = r.bodyAsString();
        for (String metric : List.of(
                "seaweedfs_rdma_read_latency_seconds_bucket{result=\"ok\",source=\"rdma\"",
                "seaweedfs_rdma_read_bytes_sum{source=\"rdma\"}",
                "seaweedfs_rdma_read_batch_seconds_count{face=\"http\"} 1",
                "seaweedfs_rdma_read_batch_needles_total{result=\"ok\",source=\"rdma\"} 2",
                "seaweedfs_rdma_read_batch_bytes_total{source=\"rdma\"}",
                "seaweedfs_rdma_reads_in_flight",
                "resilience4j_circuitbreaker_state{",
                "resilience4j_circuitbreaker_calls_seconds_count{",
                "seaweedfs_rdma_agent_state{agent=",
                "seaweedfs_rdma_needle_map_size{agent=",
                "seaweedfs_rdma_location_cache_misses_total ",
                "seaweedfs_rdma_location_cache_hits_total ",
                "seaweedfs_rdma_location_cache_evictions_total ",
                "seaweedfs_rdma_location_cache_lookups_sent_total ",
                "seaweedfs_rdma_location_cache_batch_size_ids_count ",
                "seaweedfs_rdma_location_cache_used_bytes ",
                "seaweedfs_rdma_ucx_operations_total{worker=\"sidecar\"}",
                "seaweedfs_rdma_ucx_errors_total{worker=\"sidecar\"}",
                "vertx_http_server_requests_total{")) {
            assertTrue(text.contains(metric), "missing " + metric + "\n" + text);
        }
        assertTrue(text.matches("(?s).*seaweedfs_rdma_needle_map_size\\{agent=\"[^\"]+\"} [1-9][0-9]*\\.0.*"),
                "the sidecar caches the locations it read (at most the 298 + 7 live needles)");
        // The agent runs in its own Vert.x with its own registry (no HTTP there): its counters are bound too.
        String agent = SharedStack.get().agent.metrics.scrape();
        for (String metric : List.of("seaweedfs_rdma_agent_volumes 3.0", "seaweedfs_rdma_agent_needles 305.0",
                "seaweedfs_rdma_agent_hellos_total [1-9]",
                        "seaweedfs_rdma_agent_frames_total\\{direction=\"received\"} [1-9]",
                "seaweedfs_rdma_ucx_channels_total\\{event=\"opened\",worker=\"agent\"} [1-9]")) {
            assertTrue(java.util.regex.Pattern.compile("(?m)^" + metric).matcher(agent).find(), "agent registry misses "
                    + metric + "\n" + agent);
        }
    }

    /**
     * Over UCX's TCP transport only (the stack's), every needle of both volumes is read by UCX gets the sidecar's
     * worker counts or from the agent's file mapped here (same host), misses found in the agent's exposed index, and
     * never bytes the agent copied.
     */
    @Test
    void everyNeedleIsReadOneSidedlyAndNoneIsCopiedByTheAgent() {
        PrometheusText before = metrics(SharedStack.get().sidecar);
        List<FixtureNeedles.Expected> all = concat(volume1, volume2);
        for (FixtureNeedles.Expected e : all) {
            HttpResponse<Buffer> r = get("/" + e.fid());
            assertEquals(200, r.statusCode(), e.fid().toString());
            assertEquals("rdma", r.getHeader("X-Source"), e.fid().toString());
        }
        PrometheusText after = metrics(SharedStack.get().sidecar);
        String gets = "seaweedfs_rdma_ucx_operations_total";
        String views = "seaweedfs_rdma_ucx_lane_file_views_total"; // the agent's file, mapped here: no get
        double read = after.sum(gets) - before.sum(gets) + after.sum(views) - before.sum(views);
        assertTrue(read >= all.size(), read + " UCX gets and file views for " + all.size() + " reads");
        assertTrue(after.sum(views) > before.sum(views), "same host: records read from the agent's file");
        assertTrue(after.sum("seaweedfs_rdma_location_cache_lookups_onesided_total") > 0,
                "no miss was found in the agent's exposed index");
        assertEquals(0, metrics(SharedStack.get().agent).sum("seaweedfs_rdma_agent_read_through_bytes_total"),
                "the agent copied needle bytes");
    }

    /** The role's /metrics. */
    private PrometheusText metrics(Stack role) {
        HttpResponse<Buffer> r = send(client.request(HttpMethod.GET, role.httpPort(), "127.0.0.1", "/metrics"));
        assertEquals(200, r.statusCode());
        return PrometheusText.parse(r.bodyAsString());
    }

    private static List<FixtureNeedles.Expected> concat(List<FixtureNeedles.Expected> a,
            List<FixtureNeedles.Expected> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
