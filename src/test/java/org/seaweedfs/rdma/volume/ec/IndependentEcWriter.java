package org.seaweedfs.rdma.volume.ec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code tools/independent_ec_encode.py}: an EC writer made from SeaweedFS's format description alone, so the
 * project's readers are tested against files it did not write itself.
 */
public final class IndependentEcWriter {

    private static final Path WRITER = Path.of("tools", "independent_ec_encode.py").toAbsolutePath();

    private IndependentEcWriter() {
    }

    /** {@link #encodeFixture} with a {@code .ecsum} of 1 MiB blocks (the fixture's shards are about that long). */
    public static Path encodeFixtureWithChecksums(Path dir, int dataShards, int parityShards)
            throws IOException, InterruptedException {
        return encodeFixture(dir, dataShards, parityShards, "--ecsum", "--ecsum-block-size", String.valueOf(1 << 20));
    }

    /**
     * The fixture volume 1 (written by SeaweedFS) erasure-coded into {@code dir} (created) with the real block
     * sizes; {@code options} are the writer's further options (e.g. {@code --ecsum}).
     */
    public static Path encodeFixture(Path dir, int dataShards, int parityShards, String... options)
            throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Files.copy(EcTestVolumes.fixtureDat(), dir.resolve("1.dat"));
        Files.copy(EcTestVolumes.fixtureIdx(), dir.resolve("1.idx"));
        return encode(dir, dataShards, parityShards, options);
    }

    /**
     * The volume 1 in {@code dir} ({@code 1.dat}, {@code 1.idx}) erasure-coded there with the real block sizes;
     * {@code options} are the writer's further options (e.g. {@code --generation 2}).
     */
    public static Path encode(Path dir, int dataShards, int parityShards, String... options)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("python3", WRITER.toString(), dir.toString(), "1",
                "--data-shards", String.valueOf(dataShards), "--parity-shards", String.valueOf(parityShards)));
        command.addAll(List.of(options));
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new AssertionError("python3 runs the independent EC writer: install it (apt-get install -y python3;"
                    + " ./run.sh test does)", e);
        }
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("the independent EC writer did not finish in 120 s");
        }
        String output = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.exitValue(), "independent_ec_encode.py: " + output);
        assertTrue(Files.notExists(dir.resolve("1.dat")), "the writer removes the .dat as ec.encode does");
        return dir;
    }
}
