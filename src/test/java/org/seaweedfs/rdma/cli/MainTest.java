package org.seaweedfs.rdma.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.seaweedfs.rdma.BuildInfo;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.config.RdmaConfig;

/** The jar's command line as an operator meets it: help, version, and errors that say what is wrong. */
class MainTest {

    @TempDir
    Path dir;

    private record Result(int status, String out, String err) {
    }

    private static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "serve      | --conf",
            "demo       | --check",
            "inspect    | <volume dir | .dat file>;--offset5",
            "gen-volume | <dir>;--vid;--count;--size;--seed;--plain"})
    void everyCommandAnswersHelpWithEveryOption(String command, String options) {
        for (String flag : List.of("--help", "-h")) {
            Result r = run(command, flag);
            assertEquals(0, r.status(), r.err());
            assertTrue(r.out().startsWith("Usage: seaweedfs-rdma-sidecar " + command), r.out());
            for (String option : (options + ";--help;--version").split(";")) {
                assertTrue(r.out().contains(option), command + " --help lacks " + option + ":\n" + r.out());
            }
            assertEquals("", r.err());
        }
        Result viaHelp = run("help", command);
        assertEquals(0, viaHelp.status());
        assertEquals(run(command, "--help").out(), viaHelp.out());
    }

    @Test
    void topLevelHelpListsEveryCommand() {
        Result r = run("--help");
        assertEquals(0, r.status());
        for (String command : List.of("serve", "demo", "inspect", "gen-volume", "help")) {
            assertTrue(r.out().contains("  " + command), r.out());
        }
    }

    @Test
    void versionComesFromTheBuild() {
        assertTrue(BuildInfo.version().matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"), BuildInfo.version());
        for (String[] args : List.of(new String[] {"--version"}, new String[] {"serve", "--version"},
                new String[] {"inspect", "-V"})) {
            Result r = run(args);
            assertEquals(0, r.status(), r.err());
            assertTrue(r.out().startsWith("seaweedfs-rdma-sidecar " + BuildInfo.version() + "\n"), r.out());
        }
    }

    @Test
    void usageErrorsExitTwoNamingTheProblem() {
        Result none = run();
        assertEquals(2, none.status());
        assertTrue(none.err().contains("Missing required subcommand"), none.err());
        assertEquals(2, run("frobnicate").status());
        Result serve = run("serve");
        assertEquals(2, serve.status());
        assertTrue(serve.err().contains("Missing required option: '--conf=<file.yaml>'"), serve.err());
        assertTrue(serve.err().contains("Usage: seaweedfs-rdma-sidecar serve"), serve.err());
        Result unknown = run("demo", "--chekc");
        assertEquals(2, unknown.status());
        assertTrue(unknown.err().contains("Unknown option: '--chekc'"), unknown.err());
        Result inspect = run("inspect", dir.resolve("nothing-here").toString());
        assertEquals(2, inspect.status());
        assertTrue(inspect.err().contains("nothing-here is neither a directory nor a file"), inspect.err());
        Result count = run("gen-volume", dir.toString(), "--vid", "1", "--count", "many", "--size", "10");
        assertEquals(2, count.status());
        assertTrue(count.err().contains("Invalid value for option '--count': 'many' is not an int"), count.err());
        Result size = run("gen-volume", dir.toString(), "--vid", "1", "--count", "1", "--size", "0");
        assertEquals(2, size.status());
        assertTrue(size.err().contains("--size >= 1"), size.err());
        Result vid = run("gen-volume", dir.toString(), "--vid", "x", "--count", "1", "--size", "1");
        assertEquals(2, vid.status());
        assertTrue(vid.err().contains("--vid: "), vid.err());
        assertEquals("", vid.out());
    }

    @Test
    void aConfigurationErrorNamesTheFileAndLine() throws Exception {
        Path conf = dir.resolve("bad.yaml");
        Files.writeString(conf, "roles: [sidecar]\nhttp:\n  port: 8081\n  host: \"unclosed\n");
        Result r = run("serve", "--conf", conf.toString());
        assertEquals(2, r.status());
        assertTrue(r.err().contains(conf + ":5:1: not valid YAML"), r.err());
        Result missing = run("serve", "--conf", dir.resolve("absent.yaml").toString());
        assertEquals(2, missing.status());
        assertTrue(missing.err().contains("no such configuration file"), missing.err());
    }

    /** The launchers' command line skips the command tree, and answers as the tree's {@code serve} does. */
    @Test
    void serveWithItsFileAloneAnswersAsTheCommandTreeDoes() throws Exception {
        assertEquals(Path.of("a.yaml"), Main.serveConf(new String[] {"serve", "--conf", "a.yaml"}));
        assertEquals(Path.of("a.yaml"), Main.serveConf(new String[] {"serve", "--conf=a.yaml"}));
        for (String[] other : List.of(new String[] {"serve"}, new String[] {"serve", "--conf"},
                new String[] {"serve", "--conf="}, new String[] {"serve", "--conf", "--help"},
                new String[] {"serve", "--conf", "a.yaml", "--help"}, new String[] {"demo", "--conf", "a.yaml"})) {
            assertEquals(null, Main.serveConf(other), String.join(" ", other));
        }
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "http:\n  port: 8081\nhttp:\n  port: 8082\n");
        for (Path conf : List.of(bad, dir.resolve("absent.yaml"))) {
            Result shortPath = run("serve", "--conf", conf.toString());
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = Main.commandLine(new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8)).execute("serve", "--conf", conf.toString());
            assertEquals(2, shortPath.status(), shortPath.err());
            assertEquals(new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)),
                    shortPath);
        }
    }

    @Test
    void genVolumeWritesAVolumeThatInspectReads() {
        Result gen = run("gen-volume", dir.toString(), "--vid", "9", "--count", "3", "--size", "100");
        assertEquals(0, gen.status(), gen.err());
        assertEquals(3, gen.out().lines().count());
        Result inspect = run("inspect", dir.toString());
        assertEquals(0, inspect.status(), inspect.err());
        assertEquals(3, inspect.out().lines().count());
        assertTrue(inspect.err().matches("(?s)inspect: 1 volumes, 3 needles, 300 bytes, 0 bad checksums, 0 unreadable, "
                + "\\d+\\.\\d{3} s\\n"), inspect.err());
    }

    @Test
    void aBusyHttpPortNamesTheAddress() throws Exception {
        try (ServerSocket busy = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            RdmaConfig config = ConfigLoader.parse("", "(test)", Map.of(
                    "SEAWEEDFS_RDMA_ROLES", "sidecar",
                    "SEAWEEDFS_RDMA_HTTP_HOST", "127.0.0.1",
                    "SEAWEEDFS_RDMA_HTTP_PORT", Integer.toString(busy.getLocalPort()),
                    "SEAWEEDFS_RDMA_SIDECAR_AGENTS", "127.0.0.1:1",
                    "SEAWEEDFS_RDMA_METRICS_ENABLED", "false"));
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> ServerLauncher.start(config, new PrintStream(new ByteArrayOutputStream())));
            assertEquals("could not start: http.port " + busy.getLocalPort() + " on 127.0.0.1 is in use",
                    e.getMessage());
            assertFalse(e.getMessage().contains("Exception"));
        }
    }
}
