package org.seaweedfs.rdma.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The shell scripts parse ({@code bash -n}): the README's commands, CI and the benchmarks. A quote inside an embedded
 * Python program once broke {@code bench/run.sh} without any test noticing.
 */
class ScriptSyntaxTest {

    @Test
    void everyShellScriptParses() throws Exception {
        List<Path> scripts = new ArrayList<>(List.of(Path.of("run.sh"), Path.of(".ci", "run")));
        for (Path dir : List.of(Path.of("bench"), Path.of("bench", "lib"))) {
            try (Stream<Path> files = Files.list(dir)) {
                files.filter(f -> f.getFileName().toString().endsWith(".sh")).sorted().forEach(scripts::add);
            }
        }
        assertTrue(scripts.size() >= 6, "scripts found: " + scripts);
        for (Path script : scripts) {
            Process bash = new ProcessBuilder("bash", "-n", script.toString()).redirectErrorStream(true).start();
            String output = read(bash);
            assertTrue(bash.waitFor(30, TimeUnit.SECONDS), "bash -n " + script + " did not finish");
            assertEquals(0, bash.exitValue(), "bash -n " + script + ": " + output);
        }
    }

    private static String read(Process process) throws IOException {
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
