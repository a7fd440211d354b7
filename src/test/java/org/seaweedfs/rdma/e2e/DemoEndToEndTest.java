package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.SeaweedRdma;
import org.seaweedfs.rdma.cli.SampleVolumes;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.config.RdmaConfig;
import org.seaweedfs.rdma.metrics.RdmaMetrics;
import org.seaweedfs.rdma.volume.FileId;

/**
 * What {@code demo} runs, in-process and without its JVM exit: the sample volume it writes, the configuration
 * embedded in the jar ({@code conf/demo.yaml}) with the environment overrides an operator would use to move its
 * ports, agent and sidecar in one Vert.x; then every URL the demo prints to try.
 */
@ExtendWith(VertxExtension.class)
class DemoEndToEndTest {

    @TempDir
    Path volumes;

    @Test
    void theDemoServesEverySampleUrlItPrints(Vertx clientVertx) throws Exception {
        List<FileId> ids = SampleVolumes.writeDemo(volumes);
        Map<FileId, byte[]> contents = SampleVolumes.demoContents();
        String agent = "127.0.0.1:" + freePort();
        RdmaConfig config = ConfigLoader.parse(embeddedDemoConfig(), "demo.yaml (embedded)", Map.of(
                "SEAWEEDFS_RDMA_AGENT_VOLUME_DIRS", volumes.toString(),
                "SEAWEEDFS_RDMA_HTTP_PORT", "0",
                "SEAWEEDFS_RDMA_AGENT_LISTEN", agent,
                "SEAWEEDFS_RDMA_SIDECAR_AGENTS", agent));
        RdmaMetrics metrics = RdmaMetrics.create();
        Vertx vertx = metrics.newVertx(new io.vertx.core.VertxOptions());
        SeaweedRdma demo = await(SeaweedRdma.deploy(vertx, config, metrics));
        try {
            WebClient client = WebClient.create(clientVertx, new WebClientOptions().setDefaultHost("127.0.0.1")
                    .setDefaultPort(demo.httpPort()).setDecompressionSupported(false));
            // Every live sample, as `demo --check` fetches them.
            for (FileId id : ids) {
                HttpResponse<Buffer> r = await(client.get("/" + id).send());
                byte[] want = contents.get(id);
                if (want == null) {
                    assertEquals(404, r.statusCode(), id + " was deleted");
                    assertEquals(null, r.body(), "empty 404");
                } else {
                    assertEquals(200, r.statusCode(), id.toString());
                    assertArrayEquals(want, r.body().getBytes(), id.toString());
                    assertEquals("rdma", r.getHeader("X-Source"), id.toString());
                }
            }
            HttpResponse<Buffer> hello = await(client.get("/" + ids.get(0)).send());
            assertEquals("text/plain", hello.getHeader("Content-Type"));
            FileId compressed = ids.get(1);
            HttpResponse<Buffer> about = await(client.get("/" + compressed.volumeId() + "/" + compressed.keyCookieHex()
                    + "/about.json").send());
            assertEquals(200, about.statusCode(), about.bodyAsString());
            assertEquals("compressed needle", about.getHeader("X-Demo"), "the needle's pairs as headers");
            assertEquals("application/json", about.getHeader("Content-Type"));
            assertArrayEquals(contents.get(ids.get(1)), about.body().getBytes());
            HttpResponse<Buffer> range = await(client.get("/" + ids.get(2)).putHeader("Range", "bytes=0-99").send());
            assertEquals(206, range.statusCode());
            assertArrayEquals(Arrays.copyOf(contents.get(ids.get(2)), 100), range.body().getBytes());
            HttpResponse<Buffer> slice = await(client.get("/read?file_id=" + ids.get(0) + "&offset=6&size=4").send());
            assertEquals("from", slice.bodyAsString());
            assertEquals("true", slice.getHeader("X-RDMA-Used"));
            assertEquals("healthy", await(client.get("/health").send()).bodyAsJsonObject().getString("status"));
            assertEquals(3, await(client.get("/status").send()).bodyAsJsonObject().getJsonArray("agents")
                    .getJsonObject(0).getLong("needles"), "the three samples read have their locations cached");
            String text = await(client.get("/metrics").send()).bodyAsString();
            assertTrue(text.contains("seaweedfs_rdma_agent_needles 3.0"),
                    "agent and sidecar share the demo's registry");
            assertFalse(text.contains("seaweedfs_rdma_agent_volume_copy_bytes 0.0"),
                    "the demo serves its volume from a UCX copy");
            assertTrue(text.contains("seaweedfs_rdma_agent_volume_copy_bytes "), text);
            assertTrue(text.contains("seaweedfs_rdma_ucx_operations_total{worker=\"agent\"}"));
            assertTrue(text.contains("seaweedfs_rdma_ucx_operations_total{worker=\"sidecar\"}"));
        } finally {
            await(demo.close().eventually(() -> vertx.close()));
        }
    }

    /** The configuration `demo` runs with: conf/demo.yaml, embedded in the jar. */
    private static String embeddedDemoConfig() throws IOException {
        try (InputStream in = DemoEndToEndTest.class.getResourceAsStream("/org/seaweedfs/rdma/cli/demo.yaml")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** A port free now, for the agent (the sidecar's configuration must name it before either starts). */
    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress("127.0.0.1", 0));
            return socket.getLocalPort();
        }
    }
}
