package org.seaweedfs.rdma.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.volume.Fixtures;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.VolumeWriter;

class InspectCommandTest {

    @TempDir
    Path dir;

    /** One in-process run of the jar's entry point. */
    private record Result(int status, List<String> lines, String err) {
        List<JsonObject> json() {
            return lines.stream().map(JsonObject::new).toList();
        }

        JsonObject line(String fid) {
            return json().stream().filter(j -> j.getString("fid").equals(fid)).findFirst().orElseThrow();
        }
    }

    private static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status =
                Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        return new Result(status, text.isEmpty() ? List.of() : List.of(text.split("\n")),
                err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void fixtureVolumesAreAllGood() {
        Result r = run("inspect", Fixtures.volumes().toString());
        assertEquals(0, r.status(), r.err());
        assertEquals(298 + 7, r.lines().size());
        assertEquals(List.of("legacy", "raw"),
                r.json().stream().map(j -> j.getString("crc_state")).distinct().sorted().toList());
        assertEquals("{\"fid\":\"1,01bb51ad02\",\"size\":736,\"crc\":\"0ea166e0\",\"crc_state\":\"legacy\","
                + "\"name\":\"command.go\","
                + "\"mime\":\"text/plain; charset=utf-8\",\"last_modified\":1557775627,\"compressed\":true}",
                r.lines().stream().filter(l -> l.contains("1,01bb51ad02")).findFirst().orElseThrow());
        JsonObject file7 = r.line("2,08578634e1");
        assertEquals(83590, file7.getLong("size"));
        assertEquals("043193f7", file7.getString("crc"));
        assertEquals("raw", file7.getString("crc_state"));
        assertEquals(2_565_470 + 338_363, r.json().stream().mapToLong(j -> j.getLong("size")).sum());
    }

    @Test
    void aLoneDatIsScannedRecordByRecord() {
        Result r = run("inspect", Fixtures.path("needle/43.dat").toString());
        assertEquals(0, r.status(), r.err());
        assertEquals(List.of("{\"fid\":\"43,01b1615a86\",\"size\":1153862,\"crc\":\"3ce556c7\","
                + "\"crc_state\":\"legacy\","
                + "\"name\":\"Stickies.app.zip\",\"mime\":\"\",\"last_modified\":1654319934,\"compressed\":false}"),
                        r.lines());
    }

    @Test
    void theEmptyVolumePrintsNothing() {
        Result r = run("inspect", Fixtures.volumes().resolve("3.dat").toString());
        assertEquals(0, r.status());
        assertEquals(List.of(), r.lines());
    }

    @Test
    void aFlippedByteIsReportedBadWithExitOne() throws IOException {
        Fixtures.copyDir("volumes", dir);
        // 2,0306bfd555 is the first record of 2.dat (offset 8); its data starts 20 bytes in.
        flipByte(dir.resolve("2.dat"), 8 + 20 + 100);
        Result r = run("inspect", dir.resolve("2.dat").toString());
        assertEquals(1, r.status());
        assertEquals(7, r.lines().size());
        assertEquals("bad", r.line("2,0306bfd555").getString("crc_state"));
        assertEquals(6, r.json().stream().filter(j -> j.getString("crc_state").equals("raw")).count());
    }

    @Test
    void aTruncatedDatGivesErrorLines() throws IOException {
        Fixtures.copyDir("volumes", dir);
        try (FileChannel ch = FileChannel.open(dir.resolve("1.dat"), StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() / 2);
        }
        Result r = run("inspect", dir.resolve("1.dat").toString());
        assertEquals(1, r.status());
        assertEquals(298, r.lines().size());
        List<JsonObject> errors = r.json().stream().filter(j -> j.containsKey("error")).toList();
        assertTrue(errors.size() > 0 && errors.size() < 298);
        assertTrue(errors.stream().allMatch(j -> j.getString("crc_state").equals("bad")));
        assertTrue(errors.get(0).getString("error").contains("1.dat at offset "), errors.get(0).getString("error"));
    }

    /** Volume 12 (collection c, 5-byte offsets): a named, typed, compressed needle, an empty one and a deleted one. */
    static void writeEveryFeatureVolume(Path dir) throws IOException {
        try (VolumeWriter w = VolumeWriter.create(dir, "c", 12, 3, IndexFormat.OFFSET5)) {
            w.append(NewNeedle.builder(1, 0x10, "abc".getBytes()).name("a \"quoted\"\n\\name").mime("text/plain")
                    .lastModified(1_600_000_000).compressed(true).build());
            w.append(NewNeedle.builder(2, 0x20, new byte[0]).build());
            w.append(NewNeedle.builder(3, 0x30, "gone".getBytes()).build());
            w.delete(3, 0x30, 0);
        }
    }

    @Test
    void writerVolumesWithEveryFeatureAndFiveByteOffsets() throws IOException {
        writeEveryFeatureVolume(dir);
        Result r = run("inspect", dir.toString(), "--offset5");
        assertEquals(0, r.status(), r.err());
        assertEquals(2, r.lines().size());
        JsonObject first = r.line("12,0100000010");
        assertEquals("a \"quoted\"\n\\name", first.getString("name"));
        assertEquals(true, first.getBoolean("compressed"));
        assertEquals(1_600_000_000L, first.getLong("last_modified"));
        assertEquals("raw", first.getString("crc_state"));
        JsonObject empty = r.line("12,0200000020");
        assertEquals("empty", empty.getString("crc_state"));
        assertEquals(0, empty.getLong("size"));
        assertEquals("00000000", empty.getString("crc"));
        // Read with the wrong entry size, the index makes no sense: reported, not crashed.
        Result wrongFormat = run("inspect", dir.toString());
        assertEquals(1, wrongFormat.status());
        assertTrue(wrongFormat.json().stream().allMatch(j -> j.containsKey("error")));
    }

    @Test
    void malformedNamesInADirectoryAreSkippedWithAWarning() throws IOException {
        Fixtures.copyDir("volumes", dir);
        Files.write(dir.resolve("notes.dat"), new byte[8]);
        Files.write(dir.resolve("readme.txt"), new byte[1]);
        Result r = run("inspect", dir.toString());
        assertEquals(0, r.status());
        assertEquals(305, r.lines().size());
        assertTrue(r.err().contains("skipping 'notes.dat': volume id 'notes' is not a decimal number"), r.err());
        assertTrue(!r.err().contains("readme"));
    }

    @Test
    void usageErrorsExitTwo() throws IOException {
        assertUsage(run("inspect"), "Missing required parameter: '<volume dir | .dat file>'");
        Result typo = run("inspect", Fixtures.volumes().toString(), "--offset6");
        assertEquals(2, typo.status());
        assertTrue(typo.err().contains("Unknown option: '--offset6'\nPossible solutions: --offset5"), typo.err());
        assertUsage(run("inspect", "a", "b"), "Unmatched argument at index 2: 'b'");
        assertUsage(run("inspect", dir.resolve("nope").toString()), "is neither a directory nor a file");
        Path badName = Files.write(dir.resolve("x_y.dat"), new byte[8]);
        assertUsage(run("inspect", badName.toString()), "volume id 'y' is not a decimal number");
        assertEquals(2, run().status());
        assertEquals(2, run("frobnicate").status());
        assertTrue(run("frobnicate").err().contains("Unmatched argument at index 0: 'frobnicate'"));
    }

    @Test
    void aDirectoryWithoutVolumesSaysSo() {
        Result r = run("inspect", Fixtures.path("idx").toString());
        assertEquals(0, r.status());
        assertEquals(List.of(), r.lines());
        assertTrue(r.err().contains("no volumes"), r.err());
    }

    @Test
    void helpListsTheCommands() {
        Result r = run("--help");
        assertEquals(0, r.status());
        assertTrue(String.join("\n", r.lines()).contains("  inspect "), r.lines().toString());
        Result inspect = run("inspect", "--help");
        assertEquals(0, inspect.status());
        assertTrue(String.join("\n", inspect.lines()).contains("inspect [-hV] [--offset5] <volume dir | .dat file>"));
    }

    private static void assertUsage(Result r, String expected) {
        assertEquals(2, r.status());
        assertTrue(r.err().contains(expected), r.err());
        assertTrue(r.err().contains("Usage: seaweedfs-rdma-sidecar inspect"), r.err());
    }

    private static void flipByte(Path file, long offset) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, offset);
            b.put(0, (byte) (b.get(0) ^ 0x01)).rewind();
            ch.write(b, offset);
        }
    }
}
