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
 * plain jar (target/classes) installed as {@code org.seaweedfs.rdma:seaweedfs-rdma-sidecar}, then {@code mvn package}
 * in the example. Nothing is written outside the build trees: the install and the example's build use a local
 * repository under target/, which takes everything else from the outer build's local repository (as a file://
 * repository, so also when the outer build is offline) and, online, from Maven Central. Same Maven as the outer build.
 */
final class ExampleBuild {

    static final Path EXAMPLE = Path.of("examples/eventbus-consumer");
    static final Path JAR = EXAMPLE.resolve("target/eventbus-consumer.jar");

    private ExampleBuild() {
    }

    /** Builds the example; its runnable jar is {@link #JAR}. */
    static void build(Path work) throws IOException, InterruptedException {
        Path library = work.resolve("seaweedfs-rdma-sidecar.jar");
        ToolProvider jar =
                ToolProvider.findFirst("jar").orElseThrow(() -> new AssertionError("no jar tool in this JDK"));
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

    /** The example's local repository: this build's, under target/. */
    static final Path REPOSITORY = Path.of("target", "example-repository").toAbsolutePath();

    /** Settings naming the outer build's local repository as a remote one, for artifacts and plugins. */
    private static Path settings(Path work) throws IOException {
        String outer = System.getProperty("maven.repo.local");
        Path real = Path.of(outer == null || outer.isBlank()
                ? System.getProperty("user.home") + "/.m2/repository" : outer).toAbsolutePath();
        String repository = "<id>outer-build</id><url>" + real.toUri() + "</url>";
        return Files.writeString(work.resolve("example-settings.xml"), """
                <settings>
                  <profiles><profile><id>outer-build</id>
                    <repositories><repository>%s</repository></repositories>
                    <pluginRepositories><pluginRepository>%s</pluginRepository></pluginRepositories>
                  </profile></profiles>
                  <activeProfiles><activeProfile>outer-build</activeProfile></activeProfiles>
                </settings>
                """.formatted(repository, repository));
    }

    private static void maven(Path log, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        String home = System.getProperty("maven.home");
        command.add(home == null || home.isBlank() ? "mvn" : Path.of(home, "bin", "mvn").toString());
        command.addAll(List.of("-B", "-q", "-nsu", "-s", settings(log.getParent()).toString(),
                "-Dmaven.repo.local=" + REPOSITORY));
        if ("offline=true".equals(System.getProperty("maven.offline"))) { // "offline=" + settings.offline (a boolean)
            command.addAll(List.of("-o", "-Daether.offline.protocols=file"));
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
