package org.seaweedfs.rdma.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.volume.Fixtures;

/**
 * {@code tools/independent_inspect.py}, a reader written from the format description alone, prints what
 * {@code inspect} prints (as its usage says, sorted) on the fixture volumes, on a volume {@code gen-volume} writes and
 * on a writer volume with every feature (names, mime types, compression, an empty and a deleted needle, 5-byte
 * offsets), and on a volume with a corrupted needle.
 */
class IndependentInspectTest {

    private static final Path INSPECTOR = Path.of("tools/independent_inspect.py");

    @TempDir
    Path dir;

    @Test
    void theFixtureVolumes() throws Exception {
        assertSameOutput(Fixtures.volumes(), 298 + 7);
    }

    @Test
    void aGeneratedVolume() throws Exception {
        Path volumes = dir.resolve("generated");
        assertEquals(0, Main.run(new String[] {"gen-volume", volumes.toString(), "--vid", "21", "--count", "150",
                "--size", "5000"}, new PrintStream(new ByteArrayOutputStream()), System.err));
        assertSameOutput(volumes, 150);
    }

    @Test
    void aWriterVolumeWithEveryFeatureAndFiveByteOffsets() throws Exception {
        InspectCommandTest.writeEveryFeatureVolume(dir);
        assertSameOutput(dir, 2, "--offset5");
    }

    @Test
    void aVolumeWithABadChecksum() throws Exception {
        Fixtures.copyDir("volumes", dir);
        try (FileChannel ch =
                FileChannel.open(dir.resolve("2.dat"), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {0x55}), 8 + 20 + 100); // inside 2,0306bfd555's data
        }
        assertSameOutput(dir, 1, 298 + 7);
    }

    private static void assertSameOutput(Path volumes, int needles, String... options) throws Exception {
        assertSameOutput(volumes, 0, needles, options);
    }

    /** {@code inspect} exits with {@code status} (1: a bad checksum) and prints what the independent reader does. */
    private static void assertSameOutput(Path volumes, int status, int needles, String... options) throws Exception {
        List<String> args = new ArrayList<>(List.of("inspect", volumes.toString()));
        args.addAll(List.of(options));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(status, Main.run(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)), err.toString(StandardCharsets.UTF_8));
        List<String> ours = out.toString(StandardCharsets.UTF_8).lines().sorted().toList();
        List<String> independent = independent(volumes, options).lines().sorted().toList();
        assertEquals(needles, ours.size());
        assertEquals(ours, independent);
        assertEquals(status == 1, ours.stream().anyMatch(l -> l.contains("\"crc_state\":\"bad\"")));
    }

    private static String independent(Path volumes, String... options) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("python3", INSPECTOR.toString(), volumes.toString()));
        command.addAll(List.of(options));
        Process process;
        try {
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        } catch (IOException e) {
            throw new AssertionError("python3 runs the independent inspector: install it (apt-get install -y python3;"
                    + " ./run.sh test does)", e);
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "the independent inspector finished");
        assertEquals(0, process.exitValue(), "the independent inspector's exit status");
        return output;
    }
}
