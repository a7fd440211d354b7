package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.cli.Main;
import org.seaweedfs.rdma.testing.Await;
import org.seaweedfs.rdma.ucx.UcxSettings;
import org.seaweedfs.rdma.volume.Fixtures;

/**
 * Peers whose UCX settings could differ, each in a process of its own so that a UCX abort shows as a dead process
 * instead of killing the test: an agent started as {@code serve} starts it (its launcher relaunches the JVM with the
 * UCX_* variables it needs), and applications embedding the library (EmbeddedReaderMain) with nothing set, with
 * other segment sizes in the environment, and with other ones in code. Both use UCX's TCP transport, as between
 * hosts. UCX 1.13.1 aborted the embedding application on the first needle over 64 KiB when the agent's launcher set
 * 256 KiB segments and the application had UCX's defaults.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PeerSettingsEndToEndTest {

    private static final Pattern READY = Pattern.compile("agent on ucx://127\\.0\\.0\\.1:(\\d+)");
    private static final long CHILD_SECONDS = 120;

    private Path work;
    private ChildJvm agent;
    private int agentPort;
    private Path fids;
    private final List<String> expected = new ArrayList<>();

    @BeforeAll
    void servedAgent(@TempDir Path dir) throws Exception {
        work = dir;
        Path volumes = Files.createDirectories(work.resolve("volumes"));
        Fixtures.copyDir("volumes", volumes);
        Path conf = work.resolve("agent.yaml");
        Files.writeString(conf, "roles: [agent]\n"
                + "http: {host: 127.0.0.1, port: 0}\n"
                + "agent: {listen: '127.0.0.1:0', volumeDirs: ['" + volumes + "']}\n"
                + Stack.UCX);
        agent = ChildJvm.start(work, "agent", List.of(), Main.class, List.of("serve", "--conf", conf.toString()),
                Map.of());
        Matcher ready = Await.until("the served agent's ready line", () -> {
            Matcher m = READY.matcher(agent.stdout());
            if (!agent.process.isAlive()) {
                throw new AssertionError("the agent ended: " + agent);
            }
            return m.find() ? m : null;
        }, m -> m != null, java.time.Duration.ofSeconds(CHILD_SECONDS));
        agentPort = Integer.parseInt(ready.group(1));
        List<String> lines = new ArrayList<>();
        for (long volume : new long[] {1, 2}) {
            for (FixtureNeedles.Expected e : FixtureNeedles.live(volumes, volume)) {
                lines.add(e.fid().toString());
                expected.add(e.fid() + " " + sha256(e.plain()) + " " + e.plain().length + " rdma");
            }
        }
        assertTrue(expected.size() > 300, "fixture needles: " + expected.size());
        fids = Files.write(work.resolve("fids.txt"), lines);
    }

    @AfterAll
    void stopAgent() throws Exception {
        if (agent != null) {
            agent.close();
        }
    }

    /** An application with UCX's defaults (no UCX_* variable at all) reads every needle of a served agent. */
    @Test
    void anApplicationWithUcxDefaultsReadsEveryNeedleOfAServedAgentAndLives() throws Exception {
        ChildJvm app = embeddedApplication("defaults", List.of(), Map.of());
        assertEquals(0, app.waitFor(CHILD_SECONDS), app.toString());
        assertEquals(expectedLines("UP"), app.stdout().lines().toList(), app.toString());
        assertTrue(agent.process.isAlive(), "the agent died: " + agent);
        // UCX logs on stdout without UCX_LOG_FILE: neither stream has its version or configuration warnings
        for (ChildJvm process : List.of(app, agent)) {
            String output = process.stdout() + process.stderr();
            assertFalse(output.contains("UCP API version"), output);
            assertFalse(output.contains("invalid configuration"), output);
            assertEquals(1, output.lines().filter(l -> l.contains("UCX library 1.")).count(), output);
        }
    }

    /**
     * Other segment sizes in the application's environment (1 MiB to receive, UCX's default 8 KiB to send) change
     * nothing: the library's context settings win, it says so, and every read succeeds.
     */
    @Test
    void otherSegmentSizesInTheEnvironmentHaveNoEffectAndAreNamed() throws Exception {
        ChildJvm app = embeddedApplication("environment", List.of(), Map.of("UCX_TCP_RX_SEG_SIZE", "1m",
                "UCX_TCP_TX_SEG_SIZE", "8k"));
        assertEquals(0, app.waitFor(CHILD_SECONDS), app.toString());
        assertEquals(expectedLines("UP"), app.stdout().lines().toList(), app.toString());
        assertTrue(agent.process.isAlive(), "the agent died: " + agent);
        assertTrue(app.stderr().contains("UCX_TCP_RX_SEG_SIZE=1m in the environment has no effect"), app.stderr());
    }

    /**
     * An application whose code sets other segment sizes ({@link UcxSettings#CONFIG_PROPERTY}) refuses the agent
     * after its HelloOk, before any large frame: every read fails with the reason, and both processes live.
     */
    @Test
    void otherSegmentSizesInCodeAreRefusedCleanlyAndNoProcessDies() throws Exception {
        ChildJvm app = embeddedApplication("code", List.of("-D" + UcxSettings.CONFIG_PROPERTY
                + "=RX_SEG_SIZE=64k,TX_SEG_SIZE=64k"), Map.of());
        assertEquals(1, app.waitFor(CHILD_SECONDS), app.toString());
        List<String> lines = app.stdout().lines().toList();
        assertTrue(lines.get(0).startsWith("DOWN connect failed: refused agent 127.0.0.1:" + agentPort), lines.get(0));
        assertTrue(lines.get(0).contains("TCP_RX_SEG_SIZE 262144 there, 65536 here"), lines.get(0));
        assertEquals(expected.size() + 1, lines.size(), app.toString());
        assertTrue(lines.stream().skip(1).allMatch(l -> l.contains(" FAILED ")), app.toString());
        assertTrue(agent.process.isAlive(), "the agent died: " + agent);
        // The agent still serves an application that agrees with it.
        anApplicationWithUcxDefaultsReadsEveryNeedleOfAServedAgentAndLives();
    }

    private ChildJvm embeddedApplication(String name, List<String> jvmOptions, Map<String, String> env)
            throws Exception {
        return ChildJvm.start(work, name, jvmOptions, EmbeddedReaderMain.class,
                List.of("127.0.0.1:" + agentPort, fids.toString()), env);
    }

    private List<String> expectedLines(String first) {
        List<String> lines = new ArrayList<>(List.of(first));
        lines.addAll(expected);
        return lines;
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }
}
