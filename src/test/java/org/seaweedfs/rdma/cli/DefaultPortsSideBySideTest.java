package org.seaweedfs.rdma.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.seaweedfs.rdma.testing.RequiredEnvironment;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent-only and a sidecar-only {@code serve}, neither with a port setting, run side by side on one host and the
 * sidecar reads the agent's needles. They run in a network namespace of their own (unshare), so the default ports
 * are theirs whatever else runs on this machine.
 */
@Tag("slow") // four JVMs
class DefaultPortsSideBySideTest {

    /**
     * Network, PID and mount namespaces of their own: the ports are theirs, every process started inside ends with
     * the script, and UCX finds its peers' shared memory in a /proc that shows their PIDs.
     */
    private static final List<String> UNSHARE = List.of("unshare", "-rn", "--fork", "--pid", "--mount-proc");

    @Test
    void anAgentAndASidecarWithNoPortSettingsRunSideBySide(@TempDir Path dir) throws Exception {
        RequiredEnvironment.assume(RequiredEnvironment.UNSHARE, run(concat(UNSHARE, "true")) == 0,
                () -> "needs user and network namespaces (unshare -rn, util-linux)");
        Path volumes = dir.resolve("volumes");
        Path plain = dir.resolve("plain");
        ByteArrayOutputStream fids = new ByteArrayOutputStream();
        assertEquals(0, Main.run(new String[] {"gen-volume", volumes.toString(), "--vid", "7", "--count", "3",
                "--size", "3000", "--plain", plain.toString()}, new PrintStream(fids), System.err));
        String fid = fids.toString().lines().findFirst().orElseThrow().substring(1);
        Files.writeString(dir.resolve("agent.yaml"), "roles: [agent]\nagent: {volumeDirs: ['" + volumes + "']}\n");
        Files.writeString(dir.resolve("sidecar.yaml"), "roles: [sidecar]\n");

        // Both start; each one's /ready answers on its default port; a needle crosses from the agent to the sidecar.
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String serve = java + " -cp \"$CP\" " + Main.class.getName() + " serve --conf ";
        String curl = "curl -sS --retry-connrefused --retry 60 --retry-delay 1 --max-time 10 ";
        String script = String.join("\n",
                "set -e",
                "ip link set lo up",
                serve + "agent.yaml > agent.log 2>&1 &",
                serve + "sidecar.yaml > sidecar.log 2>&1 &",
                curl + "-o agent.ready http://127.0.0.1:8515/ready",
                curl + "-o sidecar.ready http://127.0.0.1:8081/ready",
                curl + "-D needle.headers -o needle.bin http://127.0.0.1:8081/" + fid);
        ProcessBuilder builder = new ProcessBuilder(concat(UNSHARE, "sh", "-c", script))
                .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(dir.resolve("script.log").toFile());
        builder.environment().put("CP", System.getProperty("java.class.path"));
        int status = run(builder);
        String logs = "script: " + read(dir, "script.log") + "\nagent: " + read(dir, "agent.log") + "\nsidecar: "
                + read(dir, "sidecar.log");
        assertEquals(0, status, logs);
        assertTrue(read(dir, "agent.ready").contains("\"ready\":true"), read(dir, "agent.ready") + logs);
        assertTrue(read(dir, "sidecar.ready").contains("\"ready\":true"), read(dir, "sidecar.ready") + logs);
        assertTrue(read(dir, "needle.headers").startsWith("HTTP/1.1 200"), read(dir, "needle.headers") + logs);
        try (var files = Files.list(plain)) {
            Path expected = files.filter(f -> f.getFileName().toString().equals(fid))
                    .findFirst().orElseThrow(() -> new AssertionError("no plain file for " + fid + " in " + plain));
            assertArrayEquals(Files.readAllBytes(expected), Files.readAllBytes(dir.resolve("needle.bin")));
        }
    }

    private static List<String> concat(List<String> head, String... tail) {
        return java.util.stream.Stream.concat(head.stream(), java.util.Arrays.stream(tail)).toList();
    }

    private static String read(Path dir, String name) throws Exception {
        Path file = dir.resolve(name);
        return Files.exists(file) ? Files.readString(file) : "(no " + name + ")";
    }

    private static int run(List<String> command) throws Exception {
        return run(new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD));
    }

    private static int run(ProcessBuilder builder) throws Exception {
        Process process = builder.start();
        if (!process.waitFor(180, TimeUnit.SECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            throw new AssertionError("timed out: " + builder.command());
        }
        return process.exitValue();
    }
}
