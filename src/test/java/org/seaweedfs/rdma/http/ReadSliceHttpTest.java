package org.seaweedfs.rdma.http;

import static org.junit.jupiter.api.Assertions.*;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.volume.FileId;

/** {@code /read} exactly as weed mount calls it. */
class ReadSliceHttpTest extends HttpApiTestBase {

    @Test
    void answersTheSliceBytesMarkedRdma() throws Exception {
        HttpResponse<Buffer> r =
                await(get("/read?file_id=3,01637037d6&offset=7&size=6&volume_server=http://10.0.0.1:8080").send());
        assertEquals(200, r.statusCode());
        assertEquals("seawee", r.bodyAsString());
        assertEquals("rdma", r.getHeader("X-Source"));
        assertEquals("true", r.getHeader("X-RDMA-Used"));
        assertEquals("application/octet-stream", r.getHeader("Content-Type"));
        assertEquals("http://10.0.0.1:8080", source.lastHint());
        assertAllReleased();
    }

    @Test
    void fallbackIsNamedAndNotRdma() throws Exception {
        source.source("http");
        HttpResponse<Buffer> r = await(get("/read?file_id=3,01637037d6&offset=0&size=5").send());
        assertEquals("hello", r.bodyAsString());
        assertEquals("http", r.getHeader("X-Source"));
        assertEquals("false", r.getHeader("X-RDMA-Used"));
    }

    @Test
    void sliceIsCutAtTheEndLikeAFileRead() throws Exception {
        HttpResponse<Buffer> r =
                await(get("/read?file_id=3,01637037d6&offset=" + (TEXT.length - 3) + "&size=100").send());
        assertEquals(200, r.statusCode());
        assertEquals("xyz", r.bodyAsString());
        assertEquals("3", r.getHeader("Content-Length"));
        assertEquals(TEXT.length, await(get("/read?file_id=3,01637037d6").send()).body().length());
        HttpResponse<Buffer> atEnd = await(get("/read?file_id=3,01637037d6&offset=" + TEXT.length + "&size=4").send());
        assertEquals(200, atEnd.statusCode());
        assertEquals("0", atEnd.getHeader("Content-Length"));
        HttpResponse<Buffer> past =
                await(get("/read?file_id=3,01637037d6&offset=" + (TEXT.length + 1) + "&size=4").send());
        assertEquals(416, past.statusCode());
        assertTrue(past.bodyAsJsonObject().getString("error").startsWith("offset: "));
        assertAllReleased();
    }

    @Test
    void compressedNeedlesAreSlicedInTheirFileBytes() throws Exception {
        source.putGzipped(FileId.parse("5,0100000001"), "abcdefghij".repeat(100).getBytes(), "", "");
        HttpResponse<Buffer> r = await(get("/read?file_id=5,0100000001&offset=12&size=5")
                .putHeader("Accept-Encoding", "gzip").send());
        assertEquals("cdefg", r.bodyAsString());
        assertNull(r.getHeader("Content-Encoding"));
        assertAllReleased();
    }

    @Test
    void badParametersAre400NamingThem() throws Exception {
        String[][] cases = {
                {"/read", "file_id: missing"},
                {"/read?file_id=3", "file_id: "},
                {"/read?file_id=3,zz", "file_id: "},
                {"/read?file_id=3,01637037d6&offset=-1", "offset: must be a non-negative integer, got '-1'"},
                {"/read?file_id=3,01637037d6&size=ten", "size: must be a non-negative integer, got 'ten'"},
                {"/read?file_id=3,01637037d6&volume_server=ftp://x:1", "volume_server: "},
                {"/read?file_id=3,01637037d6&volume_server=nohost", "volume_server: "},
        };
        for (String[] c : cases) {
            HttpResponse<Buffer> r = await(get(c[0]).send());
            assertEquals(400, r.statusCode(), c[0]);
            assertTrue(r.bodyAsJsonObject().getString("error").startsWith(c[1]), r.bodyAsString());
        }
    }

    @Test
    void readFailuresAreJson() throws Exception {
        HttpResponse<Buffer> missing = await(get("/read?file_id=9,01637037d6").send());
        assertEquals(404, missing.statusCode());
        assertEquals(404, missing.bodyAsJsonObject().getInteger("code"));
        source.fail(FileId.parse("7,0100000001"), new ReadFailure(ReadFailure.Kind.TIMEOUT, "slow"));
        HttpResponse<Buffer> timeout = await(get("/read?file_id=7,0100000001").send());
        assertEquals(504, timeout.statusCode());
        assertEquals("slow", timeout.bodyAsJsonObject().getString("error"));
        assertAllReleased();
    }
}
