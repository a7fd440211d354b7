package org.seaweedfs.rdma.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar on an application's class path, the application configuring no logging: nothing below INFO is logged and
 * nothing reaches stdout (Logback's own default would print DEBUG there). A child JVM runs a tiny application that
 * deploys a sidecar, whose start logs at DEBUG (Netty, Vert.x, the read path), on this build's class path without
 * the tests' logback-test.xml.
 */
class LibraryLoggingTest {

    private static final String APP = """
            import io.vertx.core.Vertx;
            import org.seaweedfs.rdma.SeaweedRdma;
            import org.seaweedfs.rdma.config.ConfigLoader;
            import org.slf4j.LoggerFactory;

            public class App {
                public static void main(String[] args) {
                    Vertx vertx = Vertx.vertx();
                    SeaweedRdma rdma = SeaweedRdma.deploy(vertx, ConfigLoader.parse(
                            "roles: [sidecar]\\nhttp: {host: 127.0.0.1, port: 0}\\nsidecar: {agents: ['127.0.0.1:1']}",
                            "app", java.util.Map.of()), null).await();
                    LoggerFactory.getLogger("app").debug("app debug line");
                    LoggerFactory.getLogger("app").info("app info line");
                    rdma.close().compose(v -> vertx.close()).await();
                }
            }
            """;

    @Test
    void anApplicationWithoutLoggingConfigurationGetsInfoOnStderrOnly(@TempDir Path dir) throws Exception {
        Path app = Files.writeString(dir.resolve("App.java"), APP);
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !Files.exists(Path.of(entry, "logback-test.xml")))
                .collect(Collectors.joining(File.pathSeparator));
        Path out = dir.resolve("stdout");
        Path err = dir.resolve("stderr");
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classPath, app.toString())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the application did not finish: " + Files.readString(err));
        }
        String stderr = Files.readString(err);
        assertEquals(0, process.exitValue(), stderr);
        List<String> lines = stderr.lines().toList();
        assertTrue(lines.stream().anyMatch(l -> l.matches(".* INFO  \\[main] app: app info line")), stderr);
        assertTrue(lines.stream().anyMatch(l -> l.contains(" INFO ") && l.contains("org.seaweedfs.rdma")),
                "the library's own INFO lines: " + stderr);
        assertFalse(lines.stream().anyMatch(l -> l.contains("DEBUG") || l.contains("TRACE")), stderr);
        assertEquals("", Files.readString(out), "stdout is the application's");
    }
}
