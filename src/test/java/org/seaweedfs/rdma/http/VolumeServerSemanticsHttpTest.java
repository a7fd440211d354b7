package org.seaweedfs.rdma.http;

import static org.junit.jupiter.api.Assertions.*;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.sidecar.Admission;
import org.seaweedfs.rdma.config.HttpConfig;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.InMemoryNeedleSource;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.volume.FileId;

/** The volume server's read answers (weed/server/volume_server_handlers_read.go, common.go) where clients notice. */
class VolumeServerSemanticsHttpTest extends HttpApiTestBase {

    private static final String NEEDLE = "/3,01637037d6";

    private HttpResponse<Buffer> send(HttpMethod method, String uri, String... headers) throws Exception {
        var request = client.request(method, uri);
        for (int i = 0; i < headers.length; i += 2) {
            request.putHeader(headers[i], headers[i + 1]);
        }
        return await(request.send());
    }

    private String etag() {
        return "\"" + String.format("%08x", InMemoryNeedleSource.crc(TEXT)) + "\"";
    }

    @Test
    void corsHeadersOnlyWhenTheRequestHasAnOrigin() throws Exception {
        HttpResponse<Buffer> withOrigin = send(HttpMethod.GET, NEEDLE, "Origin", "https://app.example");
        assertEquals("*", withOrigin.getHeader("Access-Control-Allow-Origin"));
        assertEquals("true", withOrigin.getHeader("Access-Control-Allow-Credentials"));
        HttpResponse<Buffer> health = send(HttpMethod.GET, "/health", "Origin", "https://app.example");
        assertEquals("*", health.getHeader("Access-Control-Allow-Origin"));
        HttpResponse<Buffer> plain = send(HttpMethod.GET, NEEDLE);
        assertNull(plain.getHeader("Access-Control-Allow-Origin"));
        assertNull(plain.getHeader("Access-Control-Allow-Credentials"));
        assertAllReleased();
    }

    @Test
    void optionsAnswers200WithTheReadOnlyPortsMethods() throws Exception {
        for (String uri : new String[] {NEEDLE, "/health", "/anything"}) {
            HttpResponse<Buffer> r = send(HttpMethod.OPTIONS, uri, "Origin", "https://app.example");
            assertEquals(200, r.statusCode(), uri);
            assertEquals("GET, OPTIONS", r.getHeader("Access-Control-Allow-Methods"), uri);
            assertEquals("*", r.getHeader("Access-Control-Allow-Headers"), uri);
            assertEquals("*", r.getHeader("Access-Control-Allow-Origin"), uri);
            assertTrue(r.body() == null || r.body().length() == 0, uri);
        }
    }

    @Test
    void headIgnoresRange() throws Exception {
        HttpResponse<Buffer> r = send(HttpMethod.HEAD, NEEDLE, "Range", "bytes=0-4");
        assertEquals(200, r.statusCode());
        assertEquals(Integer.toString(TEXT.length), r.getHeader("Content-Length"));
        assertNull(r.getHeader("Content-Range"));
        assertEquals(206, send(HttpMethod.GET, NEEDLE, "Range", "bytes=0-4").statusCode(), "GET still honours it");
        assertAllReleased();
    }

    @Test
    void ifNoneMatchIsComparedWithTheExactQuotedEtagOnly() throws Exception {
        HttpResponse<Buffer> exact = send(HttpMethod.GET, NEEDLE, "If-None-Match", etag());
        assertEquals(304, exact.statusCode());
        assertEquals(etag(), exact.getHeader("ETag"));
        assertNull(exact.getHeader("Content-Type"));
        for (String inm : new String[] {"W/" + etag(), "*", "\"00000000\", " + etag(), etag().replace("\"", "")}) {
            assertEquals(200, send(HttpMethod.GET, NEEDLE, "If-None-Match", inm).statusCode(), inm);
        }
        assertAllReleased();
    }

    @Test
    void ifModifiedSinceIsCheckedFirstAndWinsWhenItSaysNotModified() throws Exception {
        String atLastModified = "Tue, 14 Nov 2023 22:13:20 GMT";
        String before = "Tue, 14 Nov 2023 22:13:19 GMT";
        assertEquals(304, send(HttpMethod.GET, NEEDLE, "If-Modified-Since", atLastModified,
                "If-None-Match", "\"00000000\"").statusCode(), "a not-modified date wins over a mismatching ETag");
        assertEquals(304, send(HttpMethod.GET, NEEDLE, "If-Modified-Since", before,
                "If-None-Match", etag()).statusCode(), "else a matching ETag still answers 304");
        assertEquals(200, send(HttpMethod.GET, NEEDLE, "If-Modified-Since", before).statusCode());
        // Go's http.TimeFormat only: a one-digit day or another zone does not parse, so it is ignored.
        assertEquals(200,
                send(HttpMethod.GET, NEEDLE, "If-Modified-Since", "Tue, 14 Nov 2024 22:13:20 +0000").statusCode());
        assertEquals(304,
                send(HttpMethod.GET, NEEDLE, "If-Modified-Since", "Mon, 14 Nov 2024 22:13:20 GMT").statusCode(),
                "Go does not check the weekday against the date");
        assertEquals(Long.MIN_VALUE, NeedleHandler.goHttpDate("Tue, 4 Nov 2024 22:13:20 GMT"));
        assertEquals(1_700_000_000L, NeedleHandler.goHttpDate(atLastModified));
        assertAllReleased();
    }

    @Test
    void lastModifiedHasGosTwoDigitDay() throws Exception {
        FileId fid = FileId.parse("4,0c00000001");
        source.put(fid, TEXT, "a.txt", "", 1_699_000_000L, Map.of()); // Fri, 03 Nov 2023 08:26:40 GMT
        assertEquals("Fri, 03 Nov 2023 08:26:40 GMT", send(HttpMethod.GET, "/" + fid).getHeader("Last-Modified"));
    }

    @Test
    void responseQueryParametersOverrideHeaders() throws Exception {
        HttpResponse<Buffer> r = send(HttpMethod.GET, NEEDLE + "?response-content-type=application/x-custom"
                + "&Response-Cache-Control=no-cache&response-content-disposition=attachment&response-expires=0"
                + "&response-content-language=de");
        assertEquals(200, r.statusCode());
        assertEquals("application/x-custom", r.getHeader("Content-Type"));
        assertEquals("no-cache", r.getHeader("Cache-Control"));
        assertEquals("attachment", r.getHeader("Content-Disposition"), "replaces the filename disposition");
        assertEquals("0", r.getHeader("Expires"));
        assertEquals("de", r.getHeader("Content-Language"));
        assertArrayEquals(TEXT, r.bodyAsBuffer().getBytes());
        HttpResponse<Buffer> injected = send(HttpMethod.GET, NEEDLE + "?response-cache-control=a%0d%0aX-Evil:%201");
        assertEquals("a  X-Evil: 1", injected.getHeader("Cache-Control"));
        assertNull(injected.getHeader("X-Evil"));
        assertAllReleased();
    }

    @Test
    void contentTypeFromTheNeedlesNameCarriesGosCharset() throws Exception {
        FileId fid = FileId.parse("4,0d00000001");
        source.put(fid, TEXT, "notes.txt", "", 0, Map.of());
        assertEquals("text/plain; charset=utf-8", send(HttpMethod.GET, "/" + fid).getHeader("Content-Type"));
        source.put(fid, TEXT, "table.CSV", "application/octet-stream; x=1", 0, Map.of());
        assertEquals("text/csv; charset=utf-8", send(HttpMethod.GET, "/" + fid).getHeader("Content-Type"));
        source.put(fid, TEXT, "notes.txt", "text/markdown", 0, Map.of());
        assertEquals("text/markdown", send(HttpMethod.GET, "/" + fid).getHeader("Content-Type"), "stored mime wins");
        source.put(fid, TEXT, "notes.txt", "", 0, Map.of());
        assertEquals("image/png", send(HttpMethod.GET, "/4/0d00000001/x.png").getHeader("Content-Type"),
                "the URL's file name comes before the needle's");
    }

    @Test
    void withNeitherMimeNorNameTheBodyIsSniffed() throws Exception {
        FileId fid = FileId.parse("4,0e00000001");
        byte[] data = ("\u0001\u0002binary then %PDF-1.4 ...").getBytes(StandardCharsets.ISO_8859_1);
        source.put(fid, data, "", "", 0, Map.of());
        String uri = "/" + fid;
        assertEquals("application/octet-stream", send(HttpMethod.GET, uri).getHeader("Content-Type"));
        int pdf = new String(data, StandardCharsets.ISO_8859_1).indexOf("%PDF");
        HttpResponse<Buffer> ranged = send(HttpMethod.GET, uri, "Range", "bytes=" + pdf + "-");
        assertEquals(206, ranged.statusCode());
        assertEquals("application/pdf", ranged.getHeader("Content-Type"), "Go sniffs the bytes it sends");
        assertNull(send(HttpMethod.HEAD, uri).getHeader("Content-Type"), "HEAD sends no body: nothing sniffed");
        source.put(fid, "<html><body>hi</body></html>".getBytes(StandardCharsets.UTF_8), "", "", 0, Map.of());
        assertEquals("text/html; charset=utf-8", send(HttpMethod.GET, uri + ".png").getHeader("Content-Type"),
                "a /<vid>,<fid>.<ext> extension names no type");
        source.putGzipped(fid, "plain text".getBytes(StandardCharsets.UTF_8), "", "");
        HttpResponse<Buffer> gz = send(HttpMethod.GET, uri, "Accept-Encoding", "gzip");
        assertEquals("gzip", gz.getHeader("Content-Encoding"));
        assertNull(gz.getHeader("Content-Type"), "no sniffing under a Content-Encoding");
        assertEquals("text/plain; charset=utf-8", send(HttpMethod.GET, uri).getHeader("Content-Type"),
                "inflated: sniffed");
        assertAllReleased();
    }

    @Test
    void contentDispositionIsGosFormatMediaType() throws Exception {
        HttpResponse<Buffer> ascii = send(HttpMethod.GET, "/3/01637037d6/my%20file%20%22v1%22.txt?dl=1");
        assertEquals("attachment; filename=\"my file \\\"v1\\\".txt\"", ascii.getHeader("Content-Disposition"));
        HttpResponse<Buffer> utf8 = send(HttpMethod.GET, "/3/01637037d6/na%C3%AFve%20r%C3%A9sum%C3%A9.txt");
        assertEquals("inline; filename*=utf-8''na%C3%AFve%20r%C3%A9sum%C3%A9.txt",
                utf8.getHeader("Content-Disposition"));
        assertAllReleased();
    }

    @Test
    void volumeIdsAndDeltasParseAsUpstream() throws Exception {
        for (String uri : new String[] {"/4294967299,01637037d6", "/0003,01637037d6", "/3,01637037d6_",
                "/3/01637037d6_0.txt"}) {
            HttpResponse<Buffer> r = send(HttpMethod.GET, uri);
            assertEquals(200, r.statusCode(), uri);
            assertArrayEquals(TEXT, r.bodyAsBuffer().getBytes(), uri);
        }
        assertEquals(400, send(HttpMethod.GET, "/18446744073709551616,01637037d6").statusCode());
        assertAllReleased();
    }

    @Test
    void aNeedleOfSizeZeroIs200WithAnEmptyBody() throws Exception {
        FileId empty = FileId.parse("8,0100000001");
        NeedleSource emptyNeedles = new NeedleSource() {
            @Override
            public Future<NeedleStat> stat(FileId fid) {
                return read(fid).map(NeedleContent::stat);
            }

            @Override
            public Future<NeedleContent> read(FileId fid) {
                if (!fid.equals(empty)) {
                    return Future.failedFuture(ReadFailure.notFound("needle " + fid + " not found"));
                }
                NeedleStat stat = new NeedleStat(fid, 0, 0, "", "", 0, Map.of(), false, false, "rdma");
                return Future.succeededFuture(new NeedleContent() {
                    public NeedleStat stat() {
                        return stat;
                    }

                    public List<Buffer> chunks() {
                        return List.of();
                    }

                    public void release() {
                    }
                });
            }
        };
        HttpApiContext emptyApi = new HttpApiContext(emptyNeedles, status, new HttpConfig("127.0.0.1", 0, 1, null),
                1 << 20, new Admission(8), ReadMeters.noop(), null);
        HttpApiVerticle verticle = new HttpApiVerticle(emptyApi);
        vertx.deployVerticle(verticle).await(10, TimeUnit.SECONDS);
        HttpResponse<Buffer> r =
                await(client.request(HttpMethod.GET, verticle.actualPort(), "127.0.0.1", "/" + empty).send());
        assertEquals(200, r.statusCode());
        assertEquals("0", r.getHeader("Content-Length"));
        assertTrue(r.body() == null || r.body().length() == 0);
        assertNull(r.getHeader("Content-Type"), "an empty body is not sniffed");
        assertEquals("\"00000000\"", r.getHeader("ETag"));
        assertEquals(416, await(client.request(HttpMethod.GET, verticle.actualPort(), "127.0.0.1", "/" + empty)
                .putHeader("Range", "bytes=0-").send()).statusCode());
    }
}
