package org.seaweedfs.rdma.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.seaweedfs.rdma.SeaweedRdma;
import org.seaweedfs.rdma.config.ConfigException;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.config.RdmaConfig;
import org.seaweedfs.rdma.sidecar.ReadPath;
import org.seaweedfs.rdma.ucx.UcxEnvironment;
import org.seaweedfs.rdma.volume.FileId;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code demo [--check]}: the embedded default. Writes a sample volume, runs agent and sidecar in this process
 * over UCX loopback (the embedded {@code demo.yaml}; {@code SEAWEEDFS_RDMA_*} variables override it, e.g.
 * {@code SEAWEEDFS_RDMA_HTTP_PORT}), and prints URLs to try. {@code --check} fetches every sample needle once
 * over HTTP, compares the bytes with what was written, and exits (0 when all match).
 */
@Command(name = "demo", description = "Write a sample volume, run agent and sidecar in this process over UCX "
        + "loopback (the embedded demo.yaml; SEAWEEDFS_RDMA_* variables override it), print URLs to try.")
final class DemoCommand implements Callable<Integer> {

    static final String CONFIG_RESOURCE = "demo.yaml";
    static final String VOLUME_DIR_VARIABLE = "SEAWEEDFS_RDMA_AGENT_VOLUME_DIRS";

    private final PrintStream out;
    private final PrintStream err;

    @Option(names = "--check", description = "fetch every sample needle once over HTTP, compare it with what was "
            + "written, stop; exit 0 when all match")
    boolean check;

    DemoCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() throws Exception {
        return demo(check);
    }

    /** Runs the demo; with {@code check}, verifies the samples and exits the JVM with the result. */
    int demo(boolean check) throws Exception {
        UcxEnvironment.loadUcx();
        Path volumes = Files.createTempDirectory("seaweedfs-rdma-demo-");
        List<FileId> ids = SampleVolumes.writeDemo(volumes);
        RdmaConfig config;
        try {
            Map<String, String> env = new HashMap<>(System.getenv());
            env.putIfAbsent(VOLUME_DIR_VARIABLE, volumes.toString());
            config = ConfigLoader.parse(embeddedConfig(), "demo.yaml (embedded)", env);
        } catch (ConfigException e) {
            err.println("demo: " + e.getMessage());
            return 2;
        }
        Logging.configure(config.logging());
        SeaweedRdma server = ServerLauncher.start(config, err);
        String base = "http://" + config.http().host() + ":" + server.httpPort();
        out.println(ServerLauncher.readyLine(server));
        out.println("sample volume " + SampleVolumes.DEMO_VOLUME_ID + " written to " + volumes);
        out.println("try:");
        out.println("  curl -i " + base + "/" + ids.get(0) + "                # hello.txt, read over UCX");
        // A filename goes after the /<vid>/<fid> form: the volume server reads "/7,02.../about.json" as a bad volume
        // id.
        out.println("  curl -i " + base + "/" + ids.get(1).volumeId() + "/" + ids.get(1).keyCookieHex()
                + "/about.json     # gzip-compressed needle, pairs as headers");
        out.println("  curl -s " + base + "/" + ids.get(2) + " | sha256sum     # 3 MiB needle, streamed");
        out.println("  curl -i -H 'Range: bytes=0-99' " + base + "/" + ids.get(2));
        out.println("  curl -s '" + base + "/read?file_id=" + ids.get(0)
                + "&offset=6&size=4'   # the weed mount contract");
        out.println("  curl -i " + base + "/" + ids.get(3) + "                # deleted: empty 404");
        out.println("  curl -s " + base + "/health ; curl -s " + base + "/status ; curl -s " + base
                + "/metrics | head");
        out.println("  java -jar target/seaweedfs-rdma-sidecar.jar inspect " + volumes);
        out.println("stop with Ctrl-C");
        out.flush();
        if (!check) {
            return 0;
        }
        int failures = checkSamples(base, ids, out);
        out.println(failures == 0 ? "demo check passed" : "demo check FAILED: " + failures + " mismatches");
        out.flush();
        // Exit through the shutdown hook, which stops the server gracefully.
        Runtime.getRuntime().exit(failures == 0 ? 0 : 1);
        return 1;
    }

    /** Fetches the live sample needles and the deleted one; returns the number of mismatches. */
    private static int checkSamples(String base, List<FileId> ids, PrintStream out) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        Map<FileId, byte[]> expected = SampleVolumes.demoContents();
        int failures = 0;
        for (FileId id : ids) {
            HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(URI.create(base + "/" + id))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofByteArray());
            byte[] want = expected.get(id);
            boolean ok = want == null
                    ? response.statusCode() == 404
                    : response.statusCode() == 200 && java.util.Arrays.equals(want, response.body())
                            && response.headers().firstValue("X-Source").map(ReadPath.RDMA::is).orElse(false);
            out.println((ok ? "ok   " : "FAIL ") + id + " -> " + response.statusCode() + " "
                    + response.body().length + " bytes, X-Source "
                            + response.headers().firstValue("X-Source").orElse("-"));
            failures += ok ? 0 : 1;
        }
        return failures;
    }

    private static String embeddedConfig() throws IOException {
        try (InputStream in = DemoCommand.class.getResourceAsStream(CONFIG_RESOURCE)) {
            if (in == null) {
                throw new IOException("demo.yaml is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
