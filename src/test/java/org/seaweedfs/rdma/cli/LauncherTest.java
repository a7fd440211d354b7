package org.seaweedfs.rdma.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher ({@code bin/seaweedfs-rdma}, the image's entry point and {@code run.sh serve}'s) on a jar whose main
 * class reports what its JVM was given: one JVM in the launcher's own process, the operator's {@code JAVA_OPTS}, the
 * arguments unchanged, and the class-data archive it records for the jar, mapped by the JVM when fresh, left out when
 * the jar is newer.
 */
class LauncherTest {

    private static final Path LAUNCHER = Path.of("bin/seaweedfs-rdma");

    private record Run(int exit, long pid, String output) {

        String line(String key) {
            return output.lines().filter(l -> l.startsWith(key + "=")).map(l -> l.substring(key.length() + 1))
                    .findFirst().orElseThrow(() -> new AssertionError("no " + key + " in " + output));
        }
    }

    @Test
    void runsOneJvmWithTheOperatorsOptionsAndNoArchiveBeforeOneIsRecorded(@TempDir Path dir) throws Exception {
        Path jar = probeJar(dir);
        Run run = launch(Map.of("JAVA_OPTS", "-Xmx64m -Dlauncher.test=yes"), jar.toString(), "serve", "--conf",
                "a file.yaml");
        assertEquals(0, run.exit(), run.output());
        assertEquals(run.pid(), Long.parseLong(run.line("pid")), "the launcher's process is the JVM (exec)");
        assertEquals("serve --conf a file.yaml", run.line("args"));
        assertEquals("-Xmx64m -Dlauncher.test=yes", run.line("jvm"));
    }

    @Test
    void recordsAnArchiveTheJvmMapsAndLeavesItOutOnceTheJarIsNewer(@TempDir Path dir) throws Exception {
        Path jar = probeJar(dir);
        Path archive = dir.resolve("probe.jsa");
        Run recorded = launch(Map.of(), "--archive", jar.toString());
        assertEquals(0, recorded.exit(), recorded.output());
        assertTrue(Files.size(archive) > 0, "an archive beside the jar");

        // -Xshare:on: a JVM that cannot map the archive refuses to start instead of going on without it.
        Run mapped = launch(Map.of("JAVA_OPTS", "-Xshare:on"), jar.toString(), "serve");
        assertEquals(0, mapped.exit(), mapped.output());
        assertEquals("-XX:SharedArchiveFile=" + archive + " -Xshare:on", mapped.line("jvm"),
                "the archive first, the operator's options after it");

        Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(archive).toMillis() + 2_000));
        Run stale = launch(Map.of(), jar.toString(), "serve");
        assertEquals(0, stale.exit(), stale.output());
        assertFalse(stale.line("jvm").contains("SharedArchiveFile"), "an archive older than its jar is left out");
    }

    @Test
    void aFailedRecordingLeavesNoArchive(@TempDir Path dir) throws Exception {
        Path jar = dir.resolve("broken.jar");
        Files.writeString(jar, "not a jar");
        Run recorded = launch(Map.of(), "--archive", jar.toString());
        assertEquals(1, recorded.exit(), recorded.output());
        assertTrue(recorded.output().contains("the training run failed, no archive"), recorded.output());
        assertFalse(Files.exists(dir.resolve("broken.jsa")));
    }

    @Test
    void runShServesThroughTheLauncherWithAnArchiveRecordedOncePerBuild() throws IOException {
        String runSh = Files.readString(Path.of("run.sh"));
        assertTrue(runSh.contains("bin/seaweedfs-rdma --archive \"$JAR\""), runSh);
        assertTrue(runSh.contains("exec bin/seaweedfs-rdma \"$JAR\" serve \"$@\""), runSh);
    }

    /** A jar of {@link LaunchProbe} alone, named probe.jar in {@code dir}. */
    private static Path probeJar(Path dir) throws IOException {
        String name = LaunchProbe.class.getName().replace('.', '/') + ".class";
        Path content = Files.createDirectories(dir.resolve("content"));
        Path copy = content.resolve(name);
        Files.createDirectories(copy.getParent());
        try (var in = LaunchProbe.class.getClassLoader().getResourceAsStream(name)) {
            Files.write(copy, in.readAllBytes());
        }
        Path jar = dir.resolve("probe.jar");
        ToolProvider tool = ToolProvider.findFirst("jar").orElseThrow();
        assertEquals(0, tool.run(System.out, System.err, "cfe", jar.toString(), LaunchProbe.class.getName(), "-C",
                content.toString(), "."));
        return jar;
    }

    /** Runs the launcher with this JVM's java first on the PATH and {@code env} added. */
    private static Run launch(Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(LAUNCHER.toAbsolutePath().toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        for (String inherited : List.of("JAVA_OPTS", "JDK_JAVA_OPTIONS", "JAVA_TOOL_OPTIONS")) {
            builder.environment().remove(inherited);
        }
        builder.environment().put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":"
                + System.getenv("PATH"));
        builder.environment().putAll(env);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), output);
        return new Run(process.exitValue(), process.pid(), output);
    }
}
