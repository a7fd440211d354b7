package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.seaweedfs.rdma.testing.RequiredEnvironment;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import io.vertx.junit5.VertxExtension;

/**
 * The status page {@code /ui} in a real browser: Debian's headless Chromium loads it from the shared sidecar (a real
 * agent serving the fixture volumes over UCX), runs its script against {@code /status} and {@code /status/history},
 * and the rendered DOM is checked. {@code ./run.sh test} installs chromium when it is missing; only where it is
 * neither installed nor installable is this skipped, saying so. A screenshot goes to {@code target/ui.png}
 * (docs/ui.png is one of these).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith({VertxExtension.class, SharedStack.class})
class StatusPageChromiumTest {

    /** Fixture README: command.go of volume 1, file_2 of volume 2. */
    private static final String[] FIDS = {"1,01bb51ad02", "2,0306bfd555"};
    private static final Pattern TOTAL = Pattern.compile("id=\"reads-total\">([0-9,]+)<");
    private static final Pattern RDMA = Pattern.compile("id=\"reads-rdma\">([0-9,]+)<");

    private WebClient client;
    private int sidecarPort;
    private int agentPort;
    private String chromium;

    @BeforeAll
    void setUp(Vertx vertx) {
        client = WebClient.create(vertx);
        sidecarPort = SharedStack.get().sidecar.httpPort();
        agentPort = SharedStack.get().agent.httpPort();
    }

    /** One test, so that a machine without Chromium skips one test (saying why), not one per check. */
    @Test
    void theStatusPagesRenderInChromium() throws Exception {
        chromium = findChromium();
        RequiredEnvironment.assume(RequiredEnvironment.CHROMIUM, chromium != null,
                () -> "chromium is not installed (apt-get install chromium; ./run.sh test installs it)");
        thePageShowsTheAgentItsVolumesAndAReadMadeJustBefore();
        anAgentOnlyProcessShowsItsOwnVolumesOnItsPage();
        aScreenshotIsTaken();
    }

    private void thePageShowsTheAgentItsVolumesAndAReadMadeJustBefore() throws Exception {
        long before = readsTotal();
        for (String fid : FIDS) {
            assertEquals(200, get(sidecarPort, "/" + fid).statusCode());
        }
        String dom = browse(sidecarPort, "--dump-dom");
        String agent = "127.0.0.1:" + SharedStack.get().agent.agentPort();
        assertTrue(dom.contains("data-agent=\"" + agent + "\""), "the agent's row: " + excerpt(dom));
        Matcher row = Pattern.compile("data-agent=\"" + Pattern.quote(agent) + "\">(.*?)</tr>").matcher(dom);
        assertTrue(row.find());
        assertTrue(row.group(1).contains("class=\"badge up\">up<"), "the agent is shown up: " + row.group(1));
        assertTrue(row.group(1).contains("class=\"badge closed\">closed<"), "its breaker closed: " + row.group(1));
        for (String volume : new String[] {"1", "2"}) {
            assertTrue(dom.contains("data-volume=\"" + volume + "\""), "volume " + volume + " listed: " + excerpt(dom));
        }
        assertTrue(dom.contains("class=\"badge healthy\">healthy<"), "overall healthy: " + excerpt(dom));
        long shown = number(TOTAL, dom);
        assertTrue(shown >= before + FIDS.length, "the page counts the reads just made: " + shown + " < " + before
                + " + " + FIDS.length);
        assertTrue(number(RDMA, dom) >= FIDS.length, "served over RDMA");
        assertTrue(dom.contains("id=\"rate-chart\""), "the rate chart is there");
    }

    private void anAgentOnlyProcessShowsItsOwnVolumesOnItsPage() throws Exception {
        String dom = browse(agentPort, "--dump-dom");
        assertTrue(dom.contains("roles: agent"), excerpt(dom));
        assertTrue(dom.contains("<tr data-volume=\"1\">") && dom.contains("<tr data-volume=\"2\">"), excerpt(dom));
        assertTrue(dom.contains("<td>mapped</td>"), "the volume memory kind: " + excerpt(dom));
    }

    private void aScreenshotIsTaken() throws Exception {
        Path png = Path.of("target", "ui.png").toAbsolutePath();
        Files.deleteIfExists(png);
        browse(sidecarPort, "--screenshot=" + png, "--window-size=1280,1000");
        byte[] bytes = Files.readAllBytes(png);
        assertTrue(bytes.length > 1000 && bytes[1] == 'P' && bytes[2] == 'N' && bytes[3] == 'G', "a PNG");
    }

    private long readsTotal() {
        return get(sidecarPort, "/status").bodyAsJsonObject().getJsonObject("reads").getLong("total");
    }

    private HttpResponse<Buffer> get(int port, String uri) {
        return await(client.get(port, "127.0.0.1", uri).send());
    }

    /** Runs headless Chromium on {@code /ui} with a fresh profile; returns what it printed (the DOM for --dump-dom). */
    private String browse(int port, String... mode) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("seaweedfs-rdma-chromium-");
        Path out = Files.createTempFile("seaweedfs-rdma-chromium-", ".out");
        try {
            List<String> command = new ArrayList<>(List.of(chromium, "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", "--disable-dev-shm-usage", "--user-data-dir=" + profile,
                    // Lets the page's fetches and first renders finish before the DOM is taken.
                    "--virtual-time-budget=8000"));
            command.addAll(List.of(mode));
            command.add("http://127.0.0.1:" + port + "/ui");
            Process p = new ProcessBuilder(command).redirectOutput(out.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("chromium did not finish within 120 s: " + command);
            }
            assertEquals(0, p.exitValue(), "chromium's exit status");
            return Files.readString(out, StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(out);
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }

    private static long number(Pattern pattern, String dom) {
        Matcher m = pattern.matcher(dom);
        assertTrue(m.find(), pattern + " in " + excerpt(dom));
        return Long.parseLong(m.group(1).replace(",", ""));
    }

    private static String excerpt(String dom) {
        return dom.length() > 4000 ? dom.substring(0, 4000) + "..." : dom;
    }

    private static String findChromium() {
        for (String name : new String[] {"chromium", "chromium-browser"}) {
            for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
                Path candidate = Path.of(dir, name);
                if (Files.isExecutable(candidate)) {
                    return candidate.toString();
                }
            }
        }
        return null;
    }
}
