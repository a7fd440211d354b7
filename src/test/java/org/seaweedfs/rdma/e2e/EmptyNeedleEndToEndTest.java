package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.seaweedfs.rdma.testing.Await.await;
import static org.seaweedfs.rdma.testing.Await.until;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.sidecar.StubMaster;
import org.seaweedfs.rdma.sidecar.StubVolumeServer;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.Fixtures;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.VolumeWriter;

/**
 * Needles of Size 0 (empty files) answer 200 with an empty body, as the volume server does (volume_read.go returns
 * before reading): over RDMA and over the HTTP fallback. A wrong cookie is 404 over RDMA (read-through checks the
 * record as RDMA does: VerifiedRecordTest).
 */
@ExtendWith(VertxExtension.class)
class EmptyNeedleEndToEndTest {

    @TempDir
    Path dir;

    /** Volume 4 (written here): two empty files beside one with data. */
    private List<FileId> empty() {
        List<FileId> out = FixtureNeedles.empty(dir, 4);
        assertEquals(2, out.size(), "volume 4 holds two empty needles");
        return out;
    }

    private void writeVolume4() throws IOException {
        try (VolumeWriter writer = VolumeWriter.create(dir, "", 4, 3, IndexFormat.OFFSET4)) {
            writer.append(NewNeedle.builder(0x11, 0x1234_5678, new byte[0]).build());
            writer.append(NewNeedle.builder(0x12, 0x0bad_cafe, "data".getBytes(StandardCharsets.UTF_8)).build());
            writer.append(NewNeedle.builder(0x13, 0x7777_0001, new byte[0]).build());
        }
    }

    private static void assertEmpty200(WebClient client, int port, FileId fid, String source) {
        HttpResponse<Buffer> r = await(client.get(port, "127.0.0.1", "/" + fid).send());
        assertEquals(200, r.statusCode(), fid + " over " + source);
        assertEquals("0", r.getHeader("Content-Length"));
        assertEquals(source, r.getHeader("X-Source"));
        assertEquals("\"00000000\"", r.getHeader("ETag"));
        FileId wrongCookie = new FileId(fid.volumeId(), fid.key(), fid.cookie() ^ 1);
        // The agent reads the record's header and compares the cookie; the volume server does not for Size 0
        // (it returns before reading), so over the HTTP fallback a wrong cookie gets its 200 empty answer.
        assertEquals(source.equals("http") ? 200 : 404,
                await(client.get(port, "127.0.0.1", "/" + wrongCookie).send()).statusCode(), source);
    }

    @Test
    void emptyNeedlesAre200EmptyOnEveryPath(Vertx vertx) throws Exception {
        Fixtures.copyDir("volumes", dir);
        writeVolume4();
        StubVolumeServer volumeServer = await(new StubVolumeServer(vertx).start(dir));
        StubMaster master = await(new StubMaster(vertx).start());
        for (int vid = 1; vid <= 4; vid++) {
            master.locate(vid, volumeServer.url());
        }
        WebClient client = WebClient.create(vertx);
        Stack agent = Stack.agent(dir, 0);
        try (Stack rdma =
                Stack.sidecar(agent.agentPort(), "  fallback: [http]\n  master: '127.0.0.1:" + master.port() + "'\n")) {
            for (FileId fid : empty()) {
                assertEmpty200(client, rdma.httpPort(), fid, "rdma");
            }
            agent.close();
            until("the sidecar saw its agent go down", () -> !rdma.agentUp());
            for (FileId fid : empty()) {
                assertEmpty200(client, rdma.httpPort(), fid, "http");
            }
        } finally {
            await(master.stop());
            await(volumeServer.stop());
        }
    }
}
