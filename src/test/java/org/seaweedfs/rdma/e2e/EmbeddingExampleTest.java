package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.SeaweedRdma;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.config.RdmaConfig;

/**
 * The README's embedding example, run as written: a plain Vert.x application deploys the sidecar into its own
 * Vertx with one call and reads a needle over the event bus, from the shared stack's agent.
 */
@ExtendWith(SharedStack.class)
class EmbeddingExampleTest {

    @Test
    void aVertxApplicationEmbedsTheSidecarAndReadsANeedleOverTheEventBus() {
        String agent = "127.0.0.1:" + SharedStack.get().agent.agentPort();
        String fid = "2,0306bfd555";

        // README.md, "Embedding in a Vert.x application": keep the two identical.
        Vertx vertx = Vertx.vertx();
        RdmaConfig config = ConfigLoader.parse("""
                roles: [sidecar]
                http: {port: 0}
                sidecar: {agents: ['%s']}
                """.formatted(agent), "embedded configuration", System.getenv());
        SeaweedRdma rdma = SeaweedRdma.deploy(vertx, config, null).await();

        Message<Buffer> reply = vertx.eventBus()
                .<Buffer>request("seaweedfs.needle.read", new JsonObject().put("fid", fid))
                .await();
        Buffer needle = reply.body();                   // the needle's bytes (decompressed)
        String source = reply.headers().get("source");  // "rdma", or "fallback" when RDMA could not serve

        rdma.close().compose(v -> vertx.close()).await();
        // End of the README snippet.

        FixtureNeedles.Expected expected = FixtureNeedles.live(SharedStack.get().volumes, 2).stream()
                .filter(e -> e.fid().toString().equals(fid)).findFirst().orElseThrow();
        assertArrayEquals(expected.plain(), needle.getBytes());
        assertEquals("rdma", source);
    }

    /** The README shows exactly the code above, and its configuration rule is the loader's. */
    @Test
    void theReadmeShowsThisCodeAndTheEnvironmentRule() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        String test = Files.readString(Path.of("src/test/java/org/seaweedfs/rdma/e2e/EmbeddingExampleTest.java"));
        String snippet = test.substring(test.indexOf('\n', test.indexOf("// README.md, \"Embedding")) + 1,
                test.indexOf("        // End of the README snippet."));
        String unindented = snippet.lines().map(l -> l.startsWith("        ") ? l.substring(8) : l)
                .collect(Collectors.joining("\n", "", "\n"));
        assertTrue(readme.contains("## Embedding in a Vert.x application"));
        assertTrue(readme.contains("```java\n" + unindented.strip() + "\n```"), "README snippet differs from the test");

        assertEquals("SEAWEEDFS_RDMA_SIDECAR_MAX_IN_FLIGHT_READS",
                ConfigLoader.environmentVariable("sidecar.maxInFlightReads"));
        assertEquals("SEAWEEDFS_RDMA_SIDECAR_BUFFER_POOL_TOTAL_BYTES",
                ConfigLoader.environmentVariable("sidecar.bufferPool.totalBytes"));
        RdmaConfig config = ConfigLoader.parse("sidecar: {maxInFlightReads: 10}", "test", Map.of(
                "SEAWEEDFS_RDMA_SIDECAR_MAX_IN_FLIGHT_READS", "7",
                "SEAWEEDFS_RDMA_SIDECAR_AGENTS", "10.0.0.5:18515,10.0.0.6:18515"));
        assertEquals(7, config.sidecar().maxInFlightReads());
        assertEquals(2, config.sidecar().agents().size());
    }
}
