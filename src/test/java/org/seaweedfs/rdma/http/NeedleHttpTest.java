package org.seaweedfs.rdma.http;

import static org.junit.jupiter.api.Assertions.*;
import static org.seaweedfs.rdma.testing.Await.await;
import static org.seaweedfs.rdma.testing.Await.until;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetSocket;
import io.vertx.ext.web.client.HttpResponse;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.seaweedfs.rdma.sidecar.InMemoryNeedleSource;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.volume.FileId;

class NeedleHttpTest extends HttpApiTestBase {

    @Test
    void getAnswersBodyAndVolumeServerHeaders() throws Exception {
        HttpResponse<Buffer> r = await(get("/3,01637037d6").send());
        assertEquals(200, r.statusCode());
        assertArrayEquals(TEXT, r.bodyAsBuffer().getBytes());
        assertEquals("\"" + String.format("%08x", InMemoryNeedleSource.crc(TEXT)) + "\"", r.getHeader("ETag"));
        assertEquals("Tue, 14 Nov 2023 22:13:20 GMT", r.getHeader("Last-Modified"));
        assertEquals("text/plain; charset=utf-8", r.getHeader("Content-Type"));
        assertEquals("inline; filename=hello.txt", r.getHeader("Content-Disposition"));
        assertEquals("yes", r.getHeader("X-Custom"));
        assertEquals("bytes", r.getHeader("Accept-Ranges"));
        assertEquals(Integer.toString(TEXT.length), r.getHeader("Content-Length"));
        assertAllReleased();
    }

    @Test
    void allThreeUrlFormsAndTheDelta() throws Exception {
        assertEquals(200, await(get("/3/01637037d6").send()).statusCode());
        assertEquals(200, await(get("/3/01637037d6.txt").send()).statusCode());
        assertEquals(200, await(get("/3,01637037d6.jpg").send()).statusCode());
        HttpResponse<Buffer> named = await(get("/3/01637037d6/report%20v1.pdf?dl=true").send());
        assertEquals(200, named.statusCode());
        assertEquals("attachment; filename=\"report v1.pdf\"", named.getHeader("Content-Disposition"));
        source.put(FileId.parse("3,02637037d6"), TEXT, "", "", 0, Map.of());
        HttpResponse<Buffer> delta = await(get("/3,01637037d6_1").send());
        assertEquals(200, delta.statusCode());
        assertNull(delta.getHeader("Last-Modified"));
    }

    @Test
    void contentTypeIsGuessedWhenTheStoredMimeIsGeneric() throws Exception {
        FileId fid = FileId.parse("4,0a00000001");
        source.put(fid, TEXT, "", "application/octet-stream", 0, Map.of());
        HttpResponse<Buffer> byExt = await(get("/4,0a00000001.png").send());
        // As upstream: the extension of a /<vid>,<fid>.<ext> URL names no type; the body is sniffed.
        assertEquals("text/plain; charset=utf-8", byExt.getHeader("Content-Type"));
        assertNull(byExt.getHeader("Content-Disposition"), "no filename, no disposition (as the volume server)");
        assertEquals("application/pdf", await(get("/4/0a00000001/x.pdf").send()).getHeader("Content-Type"));
        source.put(fid, TEXT, "photo.jpg", "", 0, Map.of());
        HttpResponse<Buffer> byName = await(get("/4,0a00000001").send());
        assertEquals("image/jpeg", byName.getHeader("Content-Type"));
        assertEquals("inline; filename=photo.jpg", byName.getHeader("Content-Disposition"));
    }

    @Test
    void headAnswersHeadersWithoutBody() throws Exception {
        HttpResponse<Buffer> r = await(client.request(HttpMethod.HEAD, "/3,01637037d6").send());
        assertEquals(200, r.statusCode());
        assertEquals(Integer.toString(TEXT.length), r.getHeader("Content-Length"));
        assertNotNull(r.getHeader("ETag"));
        assertTrue(r.body() == null || r.body().length() == 0);
        assertAllReleased();
    }

    @Test
    void singleRangeIs206() throws Exception {
        HttpResponse<Buffer> r = await(get("/3,01637037d6").putHeader("Range", "bytes=7-12").send());
        assertEquals(206, r.statusCode());
        assertEquals("bytes 7-12/" + TEXT.length, r.getHeader("Content-Range"));
        assertEquals("seawee", r.bodyAsString());
        HttpResponse<Buffer> suffix = await(get("/3,01637037d6").putHeader("Range", "bytes=-3").send());
        assertEquals("xyz", suffix.bodyAsString());
        HttpResponse<Buffer> open =
                await(get("/3,01637037d6").putHeader("Range", "bytes=" + (TEXT.length - 2) + "-").send());
        assertEquals("yz", open.bodyAsString());
    }

    @Test
    void severalRangesAreMultipart() throws Exception {
        HttpResponse<Buffer> r = await(get("/3,01637037d6").putHeader("Range", "bytes=0-4,7-12").send());
        assertEquals(206, r.statusCode());
        String ct = r.getHeader("Content-Type");
        assertTrue(ct.startsWith("multipart/byteranges; boundary="), ct);
        String boundary = ct.substring(ct.indexOf('=') + 1);
        String expected = "--" + boundary + "\r\nContent-Range: bytes 0-4/" + TEXT.length
                + "\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nhello"
                + "\r\n--" + boundary + "\r\nContent-Range: bytes 7-12/" + TEXT.length
                + "\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nseawee"
                + "\r\n--" + boundary + "--\r\n";
        assertEquals(expected, r.bodyAsString());
        assertEquals(Integer.toString(expected.length()), r.getHeader("Content-Length"));
    }

    @Test
    void unsatisfiableRangeIs416() throws Exception {
        for (String range : new String[] {"bytes=1000-2000", "bytes=5-2", "lines=1-2", "bytes=x-1"}) {
            HttpResponse<Buffer> r = await(get("/3,01637037d6").putHeader("Range", range).send());
            assertEquals(416, r.statusCode(), range);
            assertEquals("bytes */" + TEXT.length, r.getHeader("Content-Range"));
            assertEquals(416, r.bodyAsJsonObject().getInteger("code"));
        }
        assertAllReleased();
    }

    @Test
    void conditionalRequestsAre304() throws Exception {
        String etag = await(get("/3,01637037d6").send()).getHeader("ETag");
        assertEquals(304, await(get("/3,01637037d6").putHeader("If-None-Match", etag).send()).statusCode());
        assertEquals(200, await(get("/3,01637037d6").putHeader("If-None-Match", "\"00000000\"").send()).statusCode());
        assertEquals(304, await(get("/3,01637037d6")
                .putHeader("If-Modified-Since", "Tue, 14 Nov 2023 22:13:20 GMT").send()).statusCode());
        assertEquals(200, await(get("/3,01637037d6")
                .putHeader("If-Modified-Since", "Tue, 14 Nov 2023 22:13:19 GMT").send()).statusCode());
        assertAllReleased();
    }

    @Test
    void gzipIsSentAsStoredOnlyWhenAccepted() throws Exception {
        FileId fid = FileId.parse("5,0b00000001");
        byte[] original = "compressible ".repeat(1000).getBytes();
        source.putGzipped(fid, original, "c.txt", "text/plain");
        HttpResponse<Buffer> gz =
                await(get("/5,0b00000001").putHeader("Accept-Encoding", "deflate, gzip;q=0.8").send());
        assertEquals("gzip", gz.getHeader("Content-Encoding"));
        assertArrayEquals(InMemoryNeedleSource.gzip(original), gz.bodyAsBuffer().getBytes());
        HttpResponse<Buffer> plain = await(get("/5,0b00000001").putHeader("Accept-Encoding", "gzip;q=0").send());
        assertNull(plain.getHeader("Content-Encoding"));
        assertArrayEquals(original, plain.bodyAsBuffer().getBytes());
        assertEquals(Integer.toString(original.length), plain.getHeader("Content-Length"));
        HttpResponse<Buffer> ranged = await(get("/5,0b00000001").putHeader("Range", "bytes=13-24").send());
        assertEquals("compressible", ranged.bodyAsString());
        assertAllReleased();
    }

    @Test
    void decompressionIsBounded() throws Exception {
        FileId fid = FileId.parse("5,0c00000001");
        source.putGzipped(fid, new byte[2 << 20], "", "");
        HttpResponse<Buffer> r = await(get("/5,0c00000001").send());
        assertEquals(413, r.statusCode(), "too large to decompress here, not corrupt");
        assertTrue(r.bodyAsJsonObject().getString("error").contains("sidecar.maxNeedleBytes"));
        assertAllReleased();
    }

    @Test
    void acceptEncodingParsing() {
        assertTrue(NeedleHandler.acceptsGzip("gzip"));
        assertTrue(NeedleHandler.acceptsGzip("br, GZIP;q=0.5"));
        assertTrue(NeedleHandler.acceptsGzip("*"));
        assertFalse(NeedleHandler.acceptsGzip("gzip;q=0, *"));
        assertFalse(NeedleHandler.acceptsGzip("identity"));
        assertFalse(NeedleHandler.acceptsGzip(null));
    }

    @Test
    void missingDeletedWrongCookieAndEmptyAreEmpty404() throws Exception {
        source.put(FileId.parse("6,0100000001"), new byte[0], "", "", 0, Map.of());
        source.put(FileId.parse("6,0200000001"), TEXT, "", "", 0, Map.of());
        source.delete(FileId.parse("6,0200000001"));
        for (String uri : new String[] {"/9,01637037d6", "/6,0200000001", "/3,01637037d7", "/6,0100000001"}) {
            HttpResponse<Buffer> r = await(get(uri).send());
            assertEquals(404, r.statusCode(), uri);
            assertTrue(r.body() == null || r.body().length() == 0, uri);
        }
    }

    @Test
    void malformedIdsAre400Json() throws Exception {
        for (String uri
                : new String[] {"/abc,01637037d6", "/3,0163", "/3,zz637037d6", "/3", "/1/2/3/4",
                "/18446744073709551616,01637037d6"}) {
            HttpResponse<Buffer> r = await(get(uri).send());
            assertEquals(400, r.statusCode(), uri);
            JsonObject body = r.bodyAsJsonObject();
            assertEquals(400, body.getInteger("code"));
            assertFalse(body.getString("error").isEmpty());
        }
    }

    @Test
    void readFailuresAreJsonWithTheirCode() throws Exception {
        int i = 1;
        for (ReadFailure.Kind kind : new ReadFailure.Kind[] {ReadFailure.Kind.CORRUPT, ReadFailure.Kind.UNAVAILABLE,
                ReadFailure.Kind.TIMEOUT, ReadFailure.Kind.BAD_REQUEST, ReadFailure.Kind.TOO_LARGE}) {
            FileId fid = FileId.parse("7,0" + i++ + "00000001");
            source.fail(fid, new ReadFailure(kind, "injected " + kind));
            HttpResponse<Buffer> r = await(get("/" + fid).send());
            assertEquals(kind.code, r.statusCode());
            assertEquals(new JsonObject().put("error", "injected " + kind).put("code", kind.code),
                    r.bodyAsJsonObject());
        }
    }

    @Test
    void chunkManifestsAreExpandedUnlessCmIsFalse() throws Exception {
        source.putManifest(FileId.parse("8,0100000001"), "{\"chunks\":[]}".getBytes());
        HttpResponse<Buffer> expanded = await(get("/8,0100000001").send());
        assertEquals(200, expanded.statusCode());
        assertEquals("chunked", expanded.getHeader("X-File-Store"));
        assertEquals("0", expanded.getHeader("Content-Length"), "no chunks: an empty file");
        assertEquals("{\"chunks\":[]}", await(get("/8,0100000001?cm=false").send()).bodyAsString());
        source.putManifest(FileId.parse("8,0200000001"), "not json".getBytes());
        assertEquals("not json", await(get("/8,0200000001").send()).bodyAsString(), "unparsable: served as stored");
        assertAllReleased();
    }

    @Test
    void largeNeedleStreamsChunkByChunk() throws Exception {
        byte[] big = new byte[3 << 20];
        new Random(7).nextBytes(big);
        source.chunkSize(64 * 1024);
        source.put(FileId.parse("9,0100000001"), big, "", "", 0, Map.of());
        HttpResponse<Buffer> r = await(get("/9,0100000001").send());
        assertArrayEquals(big, r.bodyAsBuffer().getBytes());
        HttpResponse<Buffer> tail = await(get("/9,0100000001").putHeader("Range", "bytes=65530-131080").send());
        assertArrayEquals(Arrays.copyOfRange(big, 65530, 131081), tail.bodyAsBuffer().getBytes());
        assertAllReleased();
    }

    @Test
    void clientGoingAwayMidStreamReleasesTheNeedle() throws Exception {
        source.chunkSize(1 << 20);
        source.put(FileId.parse("9,0200000001"), new byte[64 << 20], "", "", 0, Map.of());
        NetSocket socket = await(vertx.createNetClient().connect(port, "127.0.0.1"));
        CountDownLatch firstBytes = new CountDownLatch(1);
        socket.handler(b -> {
            socket.pause(); // stop reading: the server's write queue fills up
            firstBytes.countDown();
        });
        await(socket.write("GET /9,0200000001 HTTP/1.1\r\nHost: x\r\n\r\n"));
        assertTrue(firstBytes.await(10, TimeUnit.SECONDS));
        await(socket.close());
        assertAllReleased();
    }

    @Test
    void unknownMethodIsJson() throws Exception {
        HttpResponse<Buffer> r = await(client.request(HttpMethod.POST, "/3,01637037d6").send());
        assertEquals(405, r.statusCode());
        assertEquals(405, r.bodyAsJsonObject().getInteger("code"));
    }

    /**
     * As the volume server's Go code spells them (header names are case-insensitive, but clients and logs see these).
     */
    @Test
    void headerNamesAreSpelledAsTheVolumeServerSpellsThem() throws Exception {
        source.put(FileId.parse("9,0300000001"), "spelled".getBytes(), "text/plain", "a.txt", 0, Map.of());
        NetSocket socket = await(vertx.createNetClient().connect(port, "127.0.0.1"));
        StringBuilder head = new StringBuilder();
        CountDownLatch done = new CountDownLatch(1);
        socket.handler(b -> {
            head.append(b.toString(java.nio.charset.StandardCharsets.ISO_8859_1));
            if (head.indexOf("spelled") >= 0) {
                done.countDown();
            }
        });
        await(socket.write("GET /9,0300000001 HTTP/1.1\r\nHost: x\r\n\r\n"));
        assertTrue(done.await(10, TimeUnit.SECONDS), head.toString());
        await(socket.close());
        for (String name : new String[] {"\r\nETag: ", "\r\nContent-Type: ", "\r\nAccept-Ranges: bytes\r\n",
                "\r\nContent-Disposition: ", "\r\nContent-Length: "}) {
            assertTrue(head.indexOf(name) >= 0, name.trim() + " in " + head);
        }
    }

    /**
     * A client that leaves while its read is under way: the answer written to the closed connection fails, and the
     * needle and the admission slot come back, whether the body is one piece (the end's own future) or several.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 16})
    void aClientGoneBeforeTheAnswerGetsItsNeedleReleased(int chunkBytes) throws Exception {
        if (chunkBytes > 0) {
            source.chunkSize(chunkBytes);
        }
        source.hold(true);
        NetSocket socket = await(vertx.createNetClient().connect(port, "127.0.0.1"));
        socket.write("GET /3,01637037d6 HTTP/1.1\r\nHost: t\r\n\r\n");
        until("the read is held", () -> source.heldReads() == 1);
        await(socket.close());
        until("the server saw the client go", () -> api.connections().open() == 0);
        source.releaseHeld();
        assertAllReleased();
    }
}
