package org.seaweedfs.rdma.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A JVM of its own on this test run's class path, started with an environment free of UCX_* variables (plus the
 * ones given), its output in files under a work directory: a process that can crash without taking the test's JVM
 * with it, and whose UCX sees only what the test gives it.
 */
final class ChildJvm implements AutoCloseable {

    final Process process;
    final Path out;
    final Path err;

    private ChildJvm(Process process, Path out, Path err) {
        this.process = process;
        this.out = out;
        this.err = err;
    }

    /** Starts {@code mainClass} with {@code args}; {@code jvmOptions} before the class, {@code env} added. */
    static ChildJvm start(Path work, String name, List<String> jvmOptions, Class<?> mainClass, List<String> args,
                          Map<String, String> env) throws IOException {
        List<String> command =
                new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-Djava.io.tmpdir=" + work)); // serve's class archive stays in the work directory
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
        command.addAll(args);
        Path out = work.resolve(name + ".out");
        Path err = work.resolve(name + ".err");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().keySet().removeIf(k -> k.startsWith("UCX_"));
        builder.environment().putAll(env);
        return new ChildJvm(builder.start(), out, err);
    }

    /** Its exit status, once it ended by itself within {@code seconds}. */
    int waitFor(long seconds) throws IOException, InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new AssertionError("still running after " + seconds + " s: " + this);
        }
        return process.exitValue();
    }

    String stdout() throws IOException {
        return Files.readString(out);
    }

    String stderr() throws IOException {
        return Files.readString(err);
    }

    /** Stops it as an operator does (SIGTERM) and waits for it to go. */
    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }

    @Override
    public String toString() {
        try {
            return "stdout:\n" + stdout() + "\nstderr:\n" + stderr();
        } catch (IOException e) {
            return e.toString();
        }
    }
}
