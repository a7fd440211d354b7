package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.cli.Main;
import org.seaweedfs.rdma.testing.Await;
import org.seaweedfs.rdma.volume.Fixtures;

/**
 * {@code serve} runs its roles in the JVM it was started in: no child process, the heap the JVM was given, and UCX's
 * early variables set inside the process before UCX loads (they are in no environment the process was started with).
 */
class ServeProcessEndToEndTest {

    @TempDir
    Path work;

    @Test
    void anAgentServesFromTheJvmStartedWithUcxVariablesSetInside() throws Exception {
        Path volumes = Fixtures.copyDir("volumes", Files.createDirectories(work.resolve("volumes")));
        Path conf = work.resolve("agent.yaml");
        Files.writeString(conf, "roles: [agent]\n"
                + "http: {host: 127.0.0.1, port: 0}\n"
                + "agent: {listen: '127.0.0.1:0', volumeDirs: ['" + volumes + "']}\n"
                + "ucx: {tls: [tcp, self]}\n");
        try (ChildJvm agent = ChildJvm.start(work, "agent", List.of("-Xmx96m"), Main.class,
                List.of("serve", "--conf", conf.toString()), Map.of())) {
            Await.until("the ready line", () -> {
                assertTrue(agent.process.isAlive(), "serve ended: " + agent);
                return agent.stdout();
            }, out -> out.startsWith("ready: "), Duration.ofSeconds(120));
            // Once ready, the process runs ucx_info once to log UCX's lanes; after that line it has no child at all.
            Await.until("the UCX lanes line", agent::stderr, err -> err.contains("UCX lanes"), Duration.ofSeconds(30));
            assertEquals(List.of(), agent.process.descendants().map(ProcessHandle::pid).toList(),
                    "serve started another process: " + agent);
            // The variables UCX read, read back from the process's own environment, are the ones it needs...
            Await.until("the UCX worker's start-up line", agent::stderr, err -> err.contains("UCX_* environment"),
                    Duration.ofSeconds(30));
            assertTrue(agent.stderr().contains(
                    "UCX_* environment {UCX_ERROR_SIGNALS=, UCX_LOG_FILE=stderr, UCX_TCP_CM_REUSEADDR=y}"),
                    agent.toString());
            assertFalse(agent.stderr().contains("environment has no UCX_"), agent.toString());
            // ... and none of them came from the environment the JVM was started with.
            String initial = Files.readString(Path.of("/proc", Long.toString(agent.process.pid()), "environ"),
                    StandardCharsets.ISO_8859_1);
            assertFalse(initial.contains("UCX_"), "started with UCX variables");
        }
    }

    /** The heap is the operator's: one too small for the sidecar's location cache is refused, naming what to do. */
    @Test
    void aSidecarRefusesAHeapTooSmallForItsLocationCache() throws Exception {
        Path conf = work.resolve("sidecar.yaml");
        Files.writeString(conf, "roles: [sidecar]\nhttp: {host: 127.0.0.1, port: 0}\n"
                + "sidecar: {agents: ['127.0.0.1:1'], locationCache: {maxBytes: 96MiB}}\n");
        try (ChildJvm sidecar = ChildJvm.start(work, "sidecar", List.of("-Xmx128m"), Main.class,
                List.of("serve", "--conf", conf.toString()), Map.of())) {
            assertEquals(2, sidecar.waitFor(60), sidecar.toString());
            assertTrue(sidecar.stderr().contains("serve: sidecar.locationCache.maxBytes (96 MiB) needs a heap of at "
                    + "least 160 MiB"), sidecar.toString());
            assertTrue(sidecar.stderr().contains("JAVA_OPTS=-Xmx160m"), sidecar.toString());
        }
    }
}
