package org.seaweedfs.rdma.e2e;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;

/**
 * Builds {@code examples/eventbus-consumer} the way its README says, from this build's own output: the library's
 * plain jar (target/classes) installed as {@code org.seaweedfs.rdma:seaweedfs-rdma-sidecar} into this build's
 * local repository, then {@code mvn package} in the example. Same Maven, local repository and offline setting as
 * the outer build (surefire passes them); no snapshot updates are looked for.
 */
final class ExampleBuild {

    static final Path EXAMPLE = Path.of("examples/eventbus-consumer");
    static final Path JAR = EXAMPLE.resolve("target/eventbus-consumer.jar");

    private ExampleBuild() {
    }

    /** Builds the example; its runnable jar is {@link #JAR}. */
    static void build(Path work) throws IOException, InterruptedException {
        Path library = work.resolve("seaweedfs-rdma-sidecar.jar");
        ToolProvider jar = ToolProvider.findFirst("jar").orElseThrow(() -> new AssertionError("no jar tool in this JDK"));
        StringWriter jarOut = new StringWriter();
        int status = jar.run(new PrintWriter(jarOut), new PrintWriter(jarOut), "cf", library.toString(), "-C",
                "target/classes", ".");
        if (status != 0) {
            throw new AssertionError("jar of target/classes failed: " + jarOut);
        }
        maven(work.resolve("install.log"), "org.apache.maven.plugins:maven-install-plugin:3.1.2:install-file",
                "-Dfile=" + library.toAbsolutePath(), "-DpomFile=" + Path.of("pom.xml").toAbsolutePath());
        maven(work.resolve("package.log"), "-f", EXAMPLE.resolve("pom.xml").toAbsolutePath().toString(), "package",
                "-DskipTests");
        if (!Files.isRegularFile(JAR)) {
            throw new AssertionError("the example build made no " + JAR);
        }
    }

    private static void maven(Path log, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        String home = System.getProperty("maven.home");
        command.add(home == null || home.isBlank() ? "mvn" : Path.of(home, "bin", "mvn").toString());
        command.addAll(List.of("-B", "-q", "-nsu"));
        String repo = System.getProperty("maven.repo.local");
        if (repo != null && !repo.isBlank()) {
            command.add("-Dmaven.repo.local=" + repo);
        }
        if ("offline=true".equals(System.getProperty("maven.offline"))) { // "offline=" + settings.offline (a boolean)
            command.add("-o");
        }
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!process.waitFor(180, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("timed out: " + command);
        }
        if (process.exitValue() != 0) {
            throw new AssertionError(command + " exited " + process.exitValue() + ":\n" + Files.readString(log));
        }
    }
}
