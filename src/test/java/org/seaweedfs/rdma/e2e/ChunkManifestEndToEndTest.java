package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.testing.TarEntries;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.VolumeWriter;

/**
 * Chunk manifests (the {@code cm} flag) expanded over RDMA: every chunk read like any needle (CRC-checked), the
 * file served whole or in ranges across chunks with {@code X-File-Store: chunked}; {@code cm=false} answers the
 * manifest itself; a manifest naming a missing chunk is an error, never a short file. {@code POST /batch} holds the
 * same bytes as GET for each.
 */
@ExtendWith(VertxExtension.class)
class ChunkManifestEndToEndTest {

    private static final int CHUNK = 3000;
    private static final long MANIFEST_MTIME = 1_700_000_123L;

    @TempDir
    Path dir;

    private static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(data);
        }
        return out.toByteArray();
    }

    @Test
    void aManifestIsExpandedOverRdmaWholeAndInRanges(Vertx vertx) throws IOException {
        byte[] file = new byte[3 * CHUNK - 500];
        new Random(12).nextBytes(file);
        FileId[] chunks = {new FileId(5, 0x31, 0x1111), new FileId(5, 0x32, 0x2222), new FileId(5, 0x33, 0x3333)};
        FileId manifest = new FileId(5, 0x40, 0x4444);
        FileId broken = new FileId(5, 0x41, 0x5555);
        StringBuilder json = new StringBuilder("{\"name\":\"big.bin\",\"mime\":\"application/x-test\",\"size\":"
                + file.length + ",\"chunks\":[");
        try (VolumeWriter writer = VolumeWriter.create(dir, "", 5, 3, IndexFormat.OFFSET4)) {
            for (int i = chunks.length - 1; i >= 0; i--) { // listed out of order: sorted by offset as upstream does
                int from = i * CHUNK;
                byte[] part = Arrays.copyOfRange(file, from, Math.min(file.length, from + CHUNK));
                NewNeedle.Builder b =
                        NewNeedle.builder(chunks[i].key(), chunks[i].cookie(), i == 1 ? gzip(part) : part);
                writer.append(b.compressed(i == 1).build());
                json.append(i == chunks.length - 1 ? "" : ",").append("{\"fid\":\"").append(chunks[i])
                        .append("\",\"offset\":").append(from).append(",\"size\":").append(part.length).append('}');
            }
            json.append("]}");
            writer.append(NewNeedle.builder(manifest.key(), manifest.cookie(),
                    gzip(json.toString().getBytes(StandardCharsets.UTF_8))).compressed(true).chunkManifest(true)
                            .lastModified(MANIFEST_MTIME).build());
            String missing = "{\"chunks\":[{\"fid\":\"" + chunks[0] + "\",\"offset\":0,\"size\":" + CHUNK
                    + "},{\"fid\":\"5,0099999999\",\"offset\":" + CHUNK + ",\"size\":10}]}";
            writer.append(NewNeedle.builder(broken.key(), broken.cookie(), missing.getBytes(StandardCharsets.UTF_8))
                    .chunkManifest(true).build());
        }
        WebClient client = WebClient.create(vertx);
        try (Stack agent = Stack.agent(dir, 0); Stack sidecar = Stack.sidecar(agent.agentPort(), "  fallback: []\n")) {
            int port = sidecar.httpPort();
            HttpResponse<Buffer> whole = await(client.get(port, "127.0.0.1", "/" + manifest).send());
            assertEquals(200, whole.statusCode());
            assertEquals("chunked", whole.getHeader("X-File-Store"));
            assertEquals("rdma", whole.getHeader("X-Source"));
            assertEquals("application/x-test", whole.getHeader("Content-Type"));
            assertEquals("inline; filename=big.bin", whole.getHeader("Content-Disposition"));
            assertArrayEquals(file, whole.body().getBytes());

            HttpResponse<Buffer> across = await(client.get(port, "127.0.0.1", "/" + manifest)
                    .putHeader("Range", "bytes=2990-6010").send());
            assertEquals(206, across.statusCode());
            assertEquals("bytes 2990-6010/" + file.length, across.getHeader("Content-Range"));
            assertArrayEquals(Arrays.copyOfRange(file, 2990, 6011), across.body().getBytes(),
                    "a range over three chunks");

            HttpResponse<Buffer> raw = await(client.get(port, "127.0.0.1", "/" + manifest + "?cm=false").send());
            assertEquals(null, raw.getHeader("X-File-Store"));
            assertEquals(json.toString(), raw.bodyAsString(), "cm=false: the manifest itself (decompressed)");

            HttpResponse<Buffer> missing = await(client.get(port, "127.0.0.1", "/" + broken).send());
            assertEquals(502, missing.statusCode(), "a missing chunk: corrupt data (502), never a short file");

            // POST /batch: each member the bytes a GET answers, the manifest's neighbours unaffected.
            HttpResponse<Buffer> batch = await(client.post(port, "127.0.0.1", "/batch")
                    .sendBuffer(Buffer.buffer(chunks[1] + "\n" + manifest + "\n" + broken + "\n" + chunks[2] + "\n")));
            assertEquals(200, batch.statusCode());
            List<TarEntries.Entry> members = TarEntries.read(batch.body().getBytes());
            assertEquals(List.of(chunks[1].toString(), manifest.toString(), broken + ".error", chunks[2].toString()),
                    members.stream().map(TarEntries.Entry::name).toList());
            assertArrayEquals(await(client.get(port, "127.0.0.1", "/" + chunks[1]).send()).body().getBytes(),
                    members.get(0).data(), "a gzip-stored chunk decompressed, as GET");
            assertArrayEquals(file, members.get(1).data(), "the manifest expanded into its file, as GET");
            assertEquals(MANIFEST_MTIME, members.get(1).mtime());
            assertEquals(502, new JsonObject(members.get(2).text()).getInteger("status"));
            assertArrayEquals(Arrays.copyOfRange(file, 2 * CHUNK, file.length), members.get(3).data());
        }
    }
}
