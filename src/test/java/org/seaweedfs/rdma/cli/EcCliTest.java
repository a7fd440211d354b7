package org.seaweedfs.rdma.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.volume.ec.EcFiles;
import org.seaweedfs.rdma.volume.ec.EcTestVolumes;
import org.seaweedfs.rdma.volume.ec.EcVolumeInfo;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code gen-volume --ec} and {@code inspect} on EC volumes. */
class EcCliTest {

    @TempDir
    Path dir;

    private record Result(int status, List<String> lines, String err) {
    }

    /** Runs the jar's entry point in process, output split into lines. */
    private static Result run(String... args) {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        int status =
                Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        return new Result(status, lines, err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void inspectOfTheEcVolumeMatchesInspectOfItsDat() throws IOException {
        Path plain = dir.resolve("plain");
        Path ec = dir.resolve("ec");
        Files.createDirectories(plain);
        Files.createDirectories(ec);
        Files.copy(EcTestVolumes.fixtureDat(), plain.resolve("1.dat"));
        Files.copy(EcTestVolumes.fixtureIdx(), plain.resolve("1.idx"));
        EcTestVolumes.encodeFixtureRealBlocks(ec, "", 10, 4);
        Result fromDat = run("inspect", plain.toString());
        assertEquals(0, fromDat.status(), fromDat.err());
        assertEquals(298, fromDat.lines().size());
        Result fromEc = run("inspect", ec.toString());
        assertEquals(0, fromEc.status(), fromEc.err());
        assertEquals(fromDat.lines(), fromEc.lines());

        EcFiles files = new EcFiles(ec, "", 1);
        Files.delete(files.shard(0));
        Files.delete(files.shard(5));
        Result rebuilt = run("inspect", files.ecx().toString());
        assertEquals(0, rebuilt.status(), rebuilt.err());
        assertEquals(fromDat.lines(), rebuilt.lines());

        EcTestVolumes.encodeFixtureRealBlocks(ec, "", 10, 4); // all shards back: a flipped byte stays in one needle
        try (RandomAccessFile shard = new RandomAccessFile(files.shard(1).toFile(), "rw")) {
            shard.seek(5000);
            int b = shard.read();
            shard.seek(5000);
            shard.write(b ^ 0x40);
        }
        Result damaged = run("inspect", ec.toString());
        assertEquals(1, damaged.status());
        assertEquals(298, damaged.lines().size());
        assertEquals(1, damaged.lines().stream().filter(l -> l.contains("\"crc_state\":\"bad\"")).count(),
                damaged.lines().toString());
    }

    @Test
    void genVolumeWritesAnEcVolumeThatInspectsClean() throws IOException {
        Result gen = run("gen-volume", dir.toString(), "--vid", "12", "--count", "40", "--size", "3000", "--ec",
                "--data-shards", "6", "--parity-shards", "3");
        assertEquals(0, gen.status(), gen.err());
        assertEquals(40, gen.lines().size());
        EcFiles files = new EcFiles(dir, "", 12);
        for (int i = 0; i < 9; i++) {
            assertTrue(Files.isRegularFile(files.shard(i)), "shard " + i);
        }
        assertFalse(Files.exists(files.shard(9)));
        assertEquals(0, Files.size(files.ecj()));
        assertEquals(40 * 16, Files.size(files.ecx()));
        assertFalse(Files.exists(dir.resolve("12.dat")), "the EC volume replaces the .dat");
        EcVolumeInfo info = EcVolumeInfo.read(files.vif());
        assertEquals(6, info.dataShards());
        assertEquals(3, info.parityShards());
        Result inspect = run("inspect", dir.toString());
        assertEquals(0, inspect.status(), inspect.err());
        assertEquals(40, inspect.lines().size());
    }

    @Test
    void badShardCountsAreAUsageError() {
        Result r =
                run("gen-volume", dir.toString(), "--vid", "1", "--count", "1", "--size", "10", "--ec", "--data-shards",
                "30");
        assertNotEquals(0, r.status());
        assertTrue(r.err().contains("shard counts"), r.err());
    }
}
