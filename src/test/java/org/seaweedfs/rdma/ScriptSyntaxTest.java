package org.seaweedfs.rdma;

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
 * Python program once broke {@code bench/run.sh} without any test noticing. The bench mains ({@code bench/java},
 * compiled by {@code bench/lib/mains.sh} against the jar) compile against the main code.
 */
class ScriptSyntaxTest {

    @Test
    void theBenchMainsCompile(@org.junit.jupiter.api.io.TempDir Path out) throws Exception {
        List<String> args = new ArrayList<>(List.of("-nowarn", "-encoding", "UTF-8", "-d", out.toString(),
                "-cp", System.getProperty("java.class.path")));
        try (Stream<Path> files = Files.walk(Path.of("bench", "java"))) {
            files.filter(f -> f.toString().endsWith(".java")).sorted().forEach(f -> args.add(f.toString()));
        }
        assertTrue(args.size() >= 10, "bench mains found: " + args);
        java.io.ByteArrayOutputStream errors = new java.io.ByteArrayOutputStream();
        int status = javax.tools.ToolProvider.getSystemJavaCompiler()
                .run(null, errors, errors, args.toArray(String[]::new));
        assertEquals(0, status, errors.toString(StandardCharsets.UTF_8));
        assertTrue(Files.exists(out.resolve("org/seaweedfs/rdma/ucx/UcxGetBenchMain.class")));
    }

    @Test
    void everyShellScriptParses() throws Exception {
        List<Path> scripts = new ArrayList<>(List.of(Path.of("run.sh"), Path.of(".ci", "run"),
                Path.of("bin/seaweedfs-rdma"),
                Path.of("src/main/c/build-sigbus-guard.sh")));
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
