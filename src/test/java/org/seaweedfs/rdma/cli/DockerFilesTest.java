package org.seaweedfs.rdma.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.config.RdmaConfig;
import org.seaweedfs.rdma.config.Role;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * What can be checked of docker/ without a Docker daemon: the compose file's services, health checks, volumes and
 * shared-memory settings; the image's environment, and that its entry point, command and health check are what
 * the jar accepts (run here as the image runs them).
 */
class DockerFilesTest {

    private static final Path DOCKER = Path.of("docker");

    @SuppressWarnings("unchecked")
    private static Map<String, Object> compose() throws Exception {
        return (Map<String, Object>) new Yaml(new SafeConstructor(new LoaderOptions()))
                .load(Files.readString(DOCKER.resolve("compose.yml")));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> service(Map<String, Object> compose, String name) {
        return (Map<String, Object>) ((Map<String, Object>) compose.get("services")).get(name);
    }

    @Test
    @SuppressWarnings("unchecked")
    void composeRunsSeaweedfsBesideAnAgentAndASidecar() throws Exception {
        Map<String, Object> compose = compose();
        assertEquals(List.of("master", "volume", "agent", "sidecar"),
                new ArrayList<>(((Map<String, Object>) compose.get("services")).keySet()));
        for (String seaweed : List.of("master", "volume")) {
            String image = (String) service(compose, seaweed).get("image");
            assertTrue(image.matches("chrislusf/seaweedfs:\\d+\\.\\d+"), "official image, pinned: " + image);
        }
        for (String name : List.of("master", "volume", "agent", "sidecar")) {
            Map<String, Object> health = (Map<String, Object>) service(compose, name).get("healthcheck");
            assertTrue(health != null && health.get("test") instanceof List<?>, name + " has a health check");
        }
        Map<String, Object> volume = service(compose, "volume");
        Map<String, Object> agent = service(compose, "agent");
        Map<String, Object> sidecar = service(compose, "sidecar");
        assertTrue(((List<String>) volume.get("volumes")).contains("seaweedfs-data:/data"));
        assertTrue(((List<String>) agent.get("volumes")).contains("seaweedfs-data:/data:ro"), "the agent reads only");
        assertTrue(((Map<String, Object>) compose.get("volumes")).containsKey("seaweedfs-data"));
        assertEquals("shareable", volume.get("ipc"));
        assertTrue(volume.containsKey("shm_size"));
        assertEquals("service:volume", agent.get("ipc"));
        assertEquals("service:volume", sidecar.get("ipc"));

        // The roles each container runs, from its environment alone, as the image's CMD loads them.
        RdmaConfig agentConfig = configOf(agent);
        assertEquals(java.util.Set.of(Role.AGENT), agentConfig.roles());
        assertEquals(List.of("/data"), agentConfig.agent().volumeDirs());
        assertEquals(List.of("curl", "-fsS", "http://127.0.0.1:" + agentConfig.http().port() + "/health"),
                ((List<String>) ((Map<String, Object>) agent.get("healthcheck")).get("test")).subList(1, 4));
        RdmaConfig sidecarConfig = configOf(sidecar);
        assertEquals(java.util.Set.of(Role.SIDECAR), sidecarConfig.roles());
        assertEquals("master:9333", sidecarConfig.sidecar().master().toString());
        assertEquals(agentConfig.agent().listen().port(), sidecarConfig.sidecar().agents().get(0).port());
        assertEquals("http://127.0.0.1:" + sidecarConfig.http().port() + "/health",
                ((List<String>) ((Map<String, Object>) sidecar.get("healthcheck")).get("test")).get(3));
    }

    /** conf/config.yaml (the image's CMD) with the service's environment over it. */
    @SuppressWarnings("unchecked")
    private static RdmaConfig configOf(Map<String, Object> service) throws Exception {
        Map<String, String> env = new HashMap<>();
        ((Map<String, Object>) service.get("environment")).forEach((k, v) -> env.put(k, String.valueOf(v)));
        return ConfigLoader.parse(Files.readString(Path.of("conf/config.yaml")), "conf/config.yaml", env);
    }

    @Test
    void theImageRunsWhatTheJarAccepts() throws Exception {
        String dockerfile = Files.readString(DOCKER.resolve("Dockerfile")).replace("\\\n", " ");
        assertEquals(2, Pattern.compile("(?m)^FROM ").matcher(dockerfile).results().count(), "multi-stage");
        assertTrue(dockerfile.contains("FROM debian:12 AS build") && dockerfile.contains("FROM debian:12-slim"),
                "the Debian release the project is tested on, in both stages");
        assertTrue(dockerfile.contains("mvn -B -q -o package"), "the image builds the jar");
        assertTrue(Pattern.compile("(?m)^USER (?!root|0\\b)\\S+").matcher(dockerfile).find(), "not root");
        assertTrue(Pattern.compile("(?m)^HEALTHCHECK .*CMD curl -fsS "
                + "\"http://127\\.0\\.0\\.1:\\$\\{SEAWEEDFS_RDMA_HTTP_PORT}/health\"")
                .matcher(dockerfile).find(), dockerfile);

        // The heap is the operator's, given in JAVA_OPTS: the image's holds a sidecar's default location cache.
        Matcher env = Pattern.compile("(?m)^ENV (.*)$").matcher(dockerfile);
        Map<String, String> imageEnv = new HashMap<>();
        while (env.find()) {
            Matcher pair = Pattern.compile("(\\w+)=(\"[^\"]*\"|\\S+)").matcher(env.group(1));
            while (pair.find()) {
                imageEnv.put(pair.group(1), pair.group(2).replace("\"", ""));
            }
        }
        Matcher heap = Pattern.compile("-Xmx(\\d+)m").matcher(imageEnv.getOrDefault("JAVA_OPTS", ""));
        assertTrue(heap.find(), "the image sets a heap in JAVA_OPTS: " + imageEnv);
        assertEquals(null, ServeCommand.heapProblem(ConfigLoader.parse("", "defaults", Map.of()),
                Long.parseLong(heap.group(1)) << 20));
        assertTrue(imageEnv.keySet().stream().noneMatch(k -> k.startsWith("UCX_")),
                "serve sets UCX's variables itself: " + imageEnv);

        List<String> entrypoint = execForm(dockerfile, "ENTRYPOINT");
        List<String> cmd = execForm(dockerfile, "CMD");
        // One process: the launcher execs the JVM, which takes JAVA_OPTS and the CMD's arguments (LauncherTest), and
        // maps the class-data archive the image recorded for the jar the entry point names.
        assertEquals(List.of("/opt/seaweedfs-rdma/bin/seaweedfs-rdma",
                "/opt/seaweedfs-rdma/seaweedfs-rdma-sidecar.jar"), entrypoint);
        assertTrue(dockerfile.contains("COPY bin/seaweedfs-rdma /opt/seaweedfs-rdma/bin/seaweedfs-rdma"));
        Matcher archive = Pattern.compile("(?m)^RUN /opt/seaweedfs-rdma/bin/seaweedfs-rdma --archive (\\S+)")
                .matcher(dockerfile);
        assertTrue(archive.find(), "the image records the class-data archive");
        assertEquals(entrypoint.get(1), archive.group(1), "of the jar the entry point runs");
        assertTrue(archive.start() < dockerfile.indexOf("\nUSER "), "as root, before the image's user");
        assertTrue(dockerfile.contains("COPY --from=build /src/target/seaweedfs-rdma-sidecar.jar "
                + "/opt/seaweedfs-rdma/seaweedfs-rdma-sidecar.jar"));
        // The image's CMD, with its config path mapped to the file COPY puts there, parses and loads.
        assertEquals("/opt/seaweedfs-rdma/conf/config.yaml", cmd.get(2));
        assertTrue(dockerfile.contains("COPY conf/ /opt/seaweedfs-rdma/conf/"));
        List<String> local = List.of(cmd.get(0), cmd.get(1), "conf/config.yaml");
        var parsed =
                Main.commandLine(new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(new ByteArrayOutputStream()))
                .parseArgs(local.toArray(String[]::new));
        assertEquals("serve", parsed.subcommand().commandSpec().name());
        ConfigLoader.parse(Files.readString(Path.of(local.get(2))), local.get(2), Map.of());
        List<String> help = new ArrayList<>(cmd);
        help.add("--help");
        assertEquals(0, Main.run(help.toArray(String[]::new), new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(new ByteArrayOutputStream())));
    }

    /** The build stage builds the SIGBUS guard and the image build fails when the jar lacks it. */
    @Test
    void theImageCannotShipWithoutTheSigbusGuard(@TempDir Path dir) throws Exception {
        String dockerfile = Files.readString(DOCKER.resolve("Dockerfile")).replace("\\\n", " ");
        int finalStage = dockerfile.indexOf("\nFROM debian:12-slim");
        String build = dockerfile.substring(0, finalStage);
        String image = dockerfile.substring(finalStage);
        Matcher install = Pattern.compile("(?m)^RUN apt-get update .*apt-get install -y (.*?)&&").matcher(build);
        assertTrue(install.find(), build);
        List<String> packages = List.of(install.group(1).trim().split("\\s+"));
        assertTrue(packages.containsAll(List.of("gcc", "libc6-dev")), "the build stage installs " + packages);
        assertTrue(!dockerfile.contains("sigbusguard.skip"), "the image never skips the guard");
        int packageStep = build.indexOf("RUN mvn -B -q -o package");
        Matcher check = Pattern.compile("(?m)^RUN (.*libsigbusguard\\.so.*)$").matcher(build);
        assertTrue(check.find() && check.start() > packageStep, "the jar is checked for the guard after it is built");
        // The check step itself, run on a jar with the guard and on one without.
        assertEquals(0, runCheck(check.group(1), dir, "native/libsigbusguard.so", "other.class"));
        assertEquals(1, runCheck(check.group(1), dir, "other.class"));
        // The final stage runs as its own user from the USER line on; nothing switches back to root.
        Matcher user = Pattern.compile("(?m)^USER (\\S+)$").matcher(image);
        assertTrue(user.find(), image);
        assertEquals("seaweedfs", user.group(1));
        assertTrue(image.contains("useradd --system --uid 10001"), "the user exists in the image");
        assertTrue(!user.find(), "one USER line");
    }

    /** Runs a build-stage shell step in {@code dir}, where target/seaweedfs-rdma-sidecar.jar holds {@code entries}. */
    private static int runCheck(String step, Path dir, String... entries) throws Exception {
        Path content = Files.createTempDirectory(dir, "content");
        for (String entry : entries) {
            Files.createDirectories(content.resolve(entry).getParent());
            Files.write(content.resolve(entry), new byte[] {1});
        }
        Path jar = Files.createDirectories(dir.resolve("target")).resolve("seaweedfs-rdma-sidecar.jar");
        Files.deleteIfExists(jar);
        ToolProvider tool = ToolProvider.findFirst("jar").orElseThrow();
        assertEquals(0, tool.run(System.out, System.err, "cf", jar.toString(), "-C", content.toString(), "."));
        ProcessBuilder sh = new ProcessBuilder("sh", "-c", step).directory(dir.toFile()).redirectErrorStream(true);
        sh.environment().put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":" + System.getenv("PATH"));
        Process process = sh.start();
        process.getInputStream().transferTo(System.err);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        return process.exitValue();
    }

    @Test
    void dockerignoreSendsOnlyWhatTheBuildReads() throws Exception {
        List<String> lines = Files.readAllLines(Path.of(".dockerignore")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        assertEquals(List.of("*", "!pom.xml", "!src/main/", "!conf/", "!bin/"), lines);
    }

    /** Every seaweedfs_rdma_* series the dashboard queries is one the code registers (by its Micrometer name). */
    @Test
    void theDashboardQueriesMetricsTheCodeRegisters() throws Exception {
        String dashboard = Files.readString(DOCKER.resolve("grafana-dashboard.json"));
        new io.vertx.core.json.JsonObject(dashboard); // valid JSON
        StringBuilder sources = new StringBuilder();
        try (var files = Files.walk(Path.of("src/main/java"))) {
            for (Path f : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                sources.append(Files.readString(f));
            }
        }
        Matcher m = Pattern.compile("seaweedfs_rdma_\\w+").matcher(dashboard);
        int names = 0;
        while (m.find()) {
            names++;
            String micrometer = m.group().replaceAll("_(total|bucket|count|sum)$", "").replaceAll("_seconds$", "")
                    .replace('_', '.');
            assertTrue(sources.indexOf('"' + micrometer + '"') >= 0, m.group() + " (" + micrometer
                    + ") is not registered");
        }
        assertTrue(names > 20, "the dashboard covers the read path, breakers, lanes and agents");
        for (String r4j : List.of("resilience4j_circuitbreaker_state", "resilience4j_circuitbreaker_failure_rate",
                "resilience4j_circuitbreaker_not_permitted_calls_total")) {
            assertTrue(dashboard.contains(r4j), r4j);
        }
    }

    private static List<String> execForm(String dockerfile, String instruction) {
        Matcher m = Pattern.compile("(?m)^" + instruction + " (\\[.*])$").matcher(dockerfile);
        assertTrue(m.find(), instruction);
        return new JsonArray(m.group(1)).stream().map(String::valueOf).toList();
    }
}
