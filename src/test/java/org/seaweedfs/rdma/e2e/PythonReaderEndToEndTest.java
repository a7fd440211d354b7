package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.volume.FileId;

/**
 * The Python package ({@code python/seaweedfs_rdma}) run by {@code python3} against the real sidecar: its
 * {@code read_many} (streaming {@code POST /batch}), {@code read}, and dataset give every fixture needle's bytes and
 * every failure in request order; the standard library's own {@code tarfile} reads the same answer alike.
 */
@ExtendWith(SharedStack.class)
class PythonReaderEndToEndTest {

    private static final Path PACKAGE = Path.of("python");
    private static final Path CHECK = Path.of("python/tests/check_reader.py");

    @Test
    void everyFaceOfThePythonReaderGivesTheVolumesBytesInOrder() throws Exception {
        SharedStack.Running stack = SharedStack.get();
        Map<String, byte[]> truth = new LinkedHashMap<>();
        for (long vid : new long[] {1, 2}) {
            FixtureNeedles.live(stack.volumes, vid).forEach(e -> truth.put(e.fid().toString(), e.plain()));
        }
        List<String> fids = new ArrayList<>(truth.keySet());
        Collections.shuffle(fids, new Random(3));
        List<String> deleted = FixtureNeedles.deleted(stack.volumes, 2).stream().map(FileId::toString).toList();
        fids.add(17, deleted.get(0));
        fids.add(40, "2,7777777712345678");
        List<JsonObject> lines = run("http://127.0.0.1:" + stack.sidecar.httpPort(), fids);
        Map<String, List<JsonObject>> byFace = lines.stream().collect(Collectors.groupingBy(
                l -> l.getString("face"), LinkedHashMap::new, Collectors.toList()));
        for (String face : List.of("read_many", "read", "dataset", "tarfile")) {
            List<JsonObject> got = byFace.get(face);
            assertEquals(fids.size(), got == null ? 0 : got.size(), face);
            for (int i = 0; i < fids.size(); i++) {
                String fid = fids.get(i);
                JsonObject g = got.get(i);
                assertEquals(fid, g.getString("fid"), face + " " + i);
                byte[] expected = truth.get(fid);
                if (expected == null) {
                    assertEquals(404, g.getInteger("status"), face + " " + fid);
                } else {
                    assertEquals(200, g.getInteger("status"), face + " " + fid);
                    assertEquals(expected.length, g.getInteger("length"), face + " " + fid);
                    assertEquals(sha256(expected), g.getString("sha256"), face + " " + fid);
                }
            }
        }
        // A DataLoader's batched fetch raises the first fid that cannot be read.
        List<JsonObject> batched = byFace.get("getitems");
        assertEquals(1, batched.size(), batched.toString());
        assertEquals(deleted.get(0), batched.get(0).getString("fid"));
        assertEquals(404, batched.get(0).getInteger("status"));
    }

    private static List<JsonObject> run(String url, List<String> fids) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder("python3", CHECK.toString(), url)
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().put("PYTHONPATH", PACKAGE.toAbsolutePath().toString());
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new AssertionError("python3 runs the Python reader's check: install it (apt-get install -y"
                    + " python3; ./run.sh test does)", e);
        }
        try (OutputStream in = process.getOutputStream()) {
            in.write((String.join("\n", fids) + "\n").getBytes(StandardCharsets.UTF_8));
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "the Python check finished");
        assertEquals(0, process.exitValue(), "the Python check's exit status; output:\n" + output);
        return output.lines().map(JsonObject::new).toList();
    }

    private static String sha256(byte[] data) throws NoSuchAlgorithmException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }
}
