package org.seaweedfs.rdma.volume;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Damaged files give errors that name file, offset and field; never a giant allocation or an endless loop. */
class CorruptionTest {

    private static final long NOW = 1_700_000_000_000L;
    /** Where 43.dat's only record starts and its data begins. */
    private static final long RECORD = 8, DATA = RECORD + 20;

    @TempDir
    Path dir;

    private Path copy43() throws IOException {
        return copy43Renamed("43.dat");
    }

    private static void poke(Path file, long offset, byte... bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(bytes), offset);
        }
    }

    @Test
    void aFlippedDataByteIsABadChecksum() throws IOException {
        Path dat = copy43();
        try (FileChannel ch = FileChannel.open(dat, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            ch.read(one, DATA + 1000);
            poke(dat, DATA + 1000, (byte) (one.get(0) ^ 0x10));
            NeedleSummary s = new ChannelNeedleReader(4096).read(ch, RECORD, ch.size(), 3, dat.toString());
            assertEquals(CrcState.BAD, s.crcState());
            ByteBuffer whole = ByteBuffer.allocate((int) ch.size());
            ch.read(whole, 0);
            assertEquals(CrcState.BAD, NeedleRecord.parse(whole.flip(), (int) RECORD, 3, "43.dat", RECORD).verify());
        }
        try (Volume v = Volume.open(VolumeFiles.of(dat), IndexFormat.OFFSET4)) {
            VolumeFormatException e =
                    assertThrows(VolumeFormatException.class, () -> v.read(1, (int) 2975947398L, NOW));
            assertEquals("checksum", e.field());
            assertEquals(RECORD, e.offset());
        }
    }

    @Test
    void aTruncatedDatIsReportedNotLoopedOver() throws IOException {
        Path dat = copy43();
        try (FileChannel ch = FileChannel.open(dat, StandardOpenOption.WRITE)) {
            ch.truncate(500_000);
        }
        try (FileChannel ch = FileChannel.open(dat)) {
            VolumeFormatException e = assertThrows(VolumeFormatException.class,
                    () -> new ChannelNeedleReader().read(ch, RECORD, ch.size(), 3, dat.toString()));
            assertEquals("size", e.field());
            assertEquals(dat + " at offset 8: size: 1153890 needs a record of 1153918 bytes but only 499992 remain",
                    e.getMessage());
            NeedleMap map = new NeedleMap();
            assertThrows(VolumeFormatException.class,
                    () -> new DatScan().rebuild(ch, SuperBlock.of(3), map, "43.dat", null));
        }
        // A file cut inside the super block.
        Path tiny = dir.resolve("5.dat");
        Files.write(tiny, new byte[]{3, 0, 0});
        VolumeFormatException e = assertThrows(VolumeFormatException.class,
                () -> Volume.open(VolumeFiles.of(tiny), IndexFormat.OFFSET4));
        assertEquals("super block", e.field());
    }

    @Test
    void aSizeFieldClaiming4GiBIsAnErrorNotAnAllocation() throws IOException {
        Path dat = copy43();
        poke(dat, RECORD + 12, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xF0);
        try (FileChannel ch = FileChannel.open(dat)) {
            VolumeFormatException e = assertThrows(VolumeFormatException.class,
                    () -> new ChannelNeedleReader().read(ch, RECORD, ch.size(), 3, "43.dat"));
            assertTrue(e.getMessage().contains("4294967280 needs a record of"), e.getMessage());
            ByteBuffer whole = ByteBuffer.allocate((int) ch.size());
            ch.read(whole, 0);
            assertThrows(VolumeFormatException.class, () -> NeedleRecord.parse(whole.flip(), 8, 3, "43.dat", 8));
        }
        // dataSize larger than the body
        Path other = copy43Renamed("44.dat");
        poke(other, RECORD + 16, (byte) 0x7F, (byte) 0, (byte) 0, (byte) 0);
        try (FileChannel ch = FileChannel.open(other)) {
            VolumeFormatException e = assertThrows(VolumeFormatException.class,
                    () -> new ChannelNeedleReader().read(ch, RECORD, ch.size(), 3, "44.dat"));
            assertEquals("dataSize", e.field());
        }
    }

    private Path copy43Renamed(String name) throws IOException {
        Path to = dir.resolve(name);
        Files.copy(Fixtures.path("needle/43.dat"), to);
        to.toFile().setWritable(true);
        return to;
    }

    @Test
    void aBadSuperBlockVersionIsNamed() throws IOException {
        Path dat = copy43();
        poke(dat, 0, (byte) 7);
        VolumeFormatException e = assertThrows(VolumeFormatException.class,
                () -> Volume.open(VolumeFiles.of(dat), IndexFormat.OFFSET4));
        assertEquals(dat + " at offset 0: version: 7 is not a needle version (1, 2 or 3)", e.getMessage());
    }

    @Test
    void aSuperBlockExtraLongerThanTheFileIsAnError() throws IOException {
        Path dat = copy43();
        try (FileChannel ch = FileChannel.open(dat, StandardOpenOption.WRITE)) {
            ch.truncate(100);
        }
        poke(dat, 6, (byte) 0xFF, (byte) 0xFF);
        VolumeFormatException e = assertThrows(VolumeFormatException.class,
                () -> Volume.open(VolumeFiles.of(dat), IndexFormat.OFFSET4));
        assertEquals("super block extra size", e.field());
    }

    @Test
    void garbageAtTheIndexTailIsIgnoredUntilComplete() throws IOException {
        Path vols = Fixtures.copyDir("volumes", dir);
        try (FileChannel idx =
                FileChannel.open(vols.resolve("2.idx"), StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            idx.write(ByteBuffer.wrap(new byte[]{(byte) 0xde, (byte) 0xad, (byte) 0xbe, (byte) 0xef, 1, 2, 3}));
        }
        try (Volume v = Volume.open(VolumeFiles.of(vols.resolve("2.dat")), IndexFormat.OFFSET4)) {
            assertEquals(7, v.map().size());
            assertEquals(27 * 16, v.indexPosition());
        }
    }

    @Test
    void anIndexEntryPointingPastTheDatOrAtTheWrongRecordIsAnError() throws IOException {
        Path vols = Fixtures.copyDir("volumes", dir);
        try (FileChannel idx =
                FileChannel.open(vols.resolve("2.idx"), StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            idx.write(NeedleMapTest.entries(IndexFormat.OFFSET4, 0x99, 1L << 33, 100, 0x98, 8, 100));
        }
        try (Volume v = Volume.open(VolumeFiles.of(vols.resolve("2.dat")), IndexFormat.OFFSET4)) {
            VolumeFormatException past = assertThrows(VolumeFormatException.class, () -> v.read(0x99, 0, NOW));
            assertTrue(past.getMessage().contains("remain in the file"), past.getMessage());
            VolumeFormatException wrong = assertThrows(VolumeFormatException.class, () -> v.read(0x98, 0, NOW));
            assertEquals("size", wrong.field());
        }
    }

    @Test
    void aRecordTooShortForItsHeaderInABufferIsNamed() {
        ByteBuffer b = ByteBuffer.allocate(10);
        VolumeFormatException e =
                assertThrows(VolumeFormatException.class, () -> NeedleRecord.parse(b, 0, 3, "rdma buffer", 4096));
        assertEquals("rdma buffer at offset 4096: needle header: needs 16 bytes, 10 available", e.getMessage());
        assertThrows(VolumeFormatException.class, () -> NeedleRecord.parse(ByteBuffer.allocate(64), 0, 4, "b", 0));
    }
}
