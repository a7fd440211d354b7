package org.seaweedfs.rdma.volume;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The known answers of the fixture README, checked on files SeaweedFS wrote. */
class FixtureTest {

    private static final long NOW = 1_700_000_000_000L;

    /** Totals over a volume's live needles, read record by record as inspect does. */
    private record Totals(int live, Map<CrcState, Integer> states, int compressed, long largest, long dataBytes) {
    }

    private static Totals totals(Volume volume) throws IOException {
        ChannelNeedleReader reader = new ChannelNeedleReader(4096);
        Map<CrcState, Integer> states = new EnumMap<>(CrcState.class);
        int compressed = 0;
        long largest = 0, bytes = 0;
        LiveNeedles live = LiveNeedles.inOffsetOrder(volume.map());
        for (int i = 0; i < live.count(); i++) {
            NeedleSummary n = reader.read(volume.dat(), live.offset(i), volume.dat().size(), volume.version(), "t");
            assertEquals(live.key(i), n.header().key());
            states.merge(n.crcState(), 1, Integer::sum);
            compressed += n.meta().isCompressed() ? 1 : 0;
            largest = Math.max(largest, n.dataLength());
            bytes += n.dataLength();
        }
        return new Totals(live.count(), states, compressed, largest, bytes);
    }

    private static Volume open(String name) throws IOException {
        return Volume.open(VolumeFiles.of(Fixtures.volumes().resolve(name)), IndexFormat.OFFSET4);
    }

    @Test
    void volume1IsAllLegacyMostlyCompressed() throws IOException {
        try (Volume v = open("1.dat")) {
            assertEquals(3, v.version());
            assertEquals(298, v.map().size());
            assertEquals(298 * 16, v.indexPosition());
            Totals t = totals(v);
            assertEquals(Map.of(CrcState.LEGACY, 298), t.states());
            assertEquals(293, t.compressed());
            assertEquals(2_068_480, t.largest());
            assertEquals(2_565_470, t.dataBytes());
        }
    }

    @Test
    void volume2HasSevenLiveRawNeedlesAfterTenDeletes() throws IOException {
        try (Volume v = open("2.dat")) {
            assertEquals(7, v.map().size());
            assertEquals(27 * 16, v.indexPosition());
            Totals t = totals(v);
            assertEquals(Map.of(CrcState.RAW, 7), t.states());
            assertEquals(0, t.compressed());
            assertEquals(338_363, t.dataBytes());
        }
    }

    @Test
    void volume2RebuiltFromItsDatAloneAgreesWithItsIndex() throws IOException {
        try (Volume withIndex = open("2.dat");
             FileChannel dat = FileChannel.open(Fixtures.volumes().resolve("2.dat"))) {
            NeedleMap rebuilt = new NeedleMap();
            long end = new DatScan().rebuild(dat, withIndex.superBlock(), rebuilt, "2.dat", null);
            assertEquals(dat.size(), end);
            assertEquals(7, rebuilt.size());
            withIndex.map().forEach((key, offset, size) -> {
                assertEquals(offset, rebuilt.offsetOf(key));
                assertEquals(size, rebuilt.sizeOf(key));
            });
        }
    }

    @Test
    void volume3IsAnEmptyVolume() throws IOException {
        try (Volume v = open("3.dat")) {
            assertEquals(3, v.version());
            assertEquals(8, v.superBlock().length());
            assertEquals(0, v.map().size());
            assertEquals(0, v.indexPosition());
        }
    }

    @ParameterizedTest
    @CsvSource({
            "1,01bb51ad02, 736, 0ea166e0, 92fcb90c860843d6177a745084e6983dd1de47c03cc33902935359bcdc36038e, "
                    + "command.go, true, legacy",
            "1,02dfabcb70, 1964, 7dd254fd, 82225023d6ba63aa83ac312dfefe02a58f5d8c0e7d1fefaeea9af09564b8ad11, filer.go, "
                    + "true, legacy",
            "2,0306bfd555, 75634, 4af853fb, e7b2ed6aadbbd58ed5c0ea34f1ff190f78b44b0c841451485c2b39fc282defa3, file_2, "
                    + "false, raw",
            "2,08578634e1, 83590, 043193f7, a51237293abb4e8f5289bf70cec25b527aee9326c74115a389e505ca10302a4d, file_7, "
                    + "false, raw"})
    void namedNeedlesMatch(String vid, String hex, int size, String crc, String sha256, String name, boolean compressed,
                           String state) throws IOException {
        FileId fid = FileId.parse(vid + "," + hex);
        try (Volume v = open(vid + ".dat")) {
            NeedleRecord n = v.read(fid, NOW).orElseThrow();
            assertEquals(size, n.dataLength());
            assertEquals(crc, String.format("%08x", n.computeCrc()));
            assertEquals(sha256, sha256(n.data()));
            assertEquals(name, n.meta().name());
            assertEquals(compressed, n.meta().isCompressed());
            assertEquals(state, n.verify().label());
            assertTrue(v.read(fid.key(), fid.cookie() + 1, NOW).isEmpty(), "a wrong cookie reads as not found");
        }
    }

    @Test
    void deletedAndMissingNeedlesAreNotFound() throws IOException {
        try (Volume v = open("2.dat")) {
            // key 0x14 was written, then deleted (2.idx).
            assertFalse(v.map().contains(0x14));
            assertTrue(v.read(0x14, 0, NOW).isEmpty());
            assertTrue(v.read(0x7777, 0, NOW).isEmpty());
        }
    }

    @Test
    void needle43IsOneLegacyNeedleWithoutIndex() throws IOException {
        Path dat = Fixtures.path("needle/43.dat");
        VolumeFiles files = VolumeFiles.of(dat);
        assertEquals(43, files.volumeId());
        assertFalse(files.hasIndex());
        try (Volume v = Volume.open(files, IndexFormat.OFFSET4)) {
            assertEquals(1, v.map().size());
            NeedleRecord n = v.read(1, (int) 2975947398L, NOW).orElseThrow();
            assertEquals(1_153_862, n.dataLength());
            assertEquals("Stickies.app.zip", n.meta().name());
            assertEquals(CrcState.LEGACY, n.verify());
            assertEquals(v.dat().size(), n.recordLength() + v.superBlock().length());
        }
    }

    @Test
    void needle43ParsesFromADirectBuffer() throws IOException {
        try (FileChannel ch = FileChannel.open(Fixtures.path("needle/43.dat"))) {
            ByteBuffer direct = ByteBuffer.allocateDirect((int) ch.size());
            ch.read(direct, 0);
            direct.flip();
            NeedleRecord n = NeedleRecord.parse(direct, 8, 3, "43.dat", 8);
            assertEquals(1, n.key());
            assertEquals((int) 2975947398L, n.cookie());
            assertTrue(n.data().isDirect(), "data is a slice of the caller's buffer, not a copy");
            assertEquals(CrcState.LEGACY, n.verify());
            assertEquals(0, direct.position(), "parsing does not move the buffer");
        }
    }

    @ParameterizedTest
    @CsvSource({"simple_index.idx, 161, 161", "deleted_files.idx, 230, 78"})
    void indexFixturesReplayToTheKnownLiveCounts(String file, int entries, int live) throws IOException {
        NeedleMap map = new NeedleMap();
        IndexProgress p = new IndexReplay(IndexFormat.OFFSET4).load(Fixtures.path("idx/" + file), map);
        assertEquals(entries, p.entries());
        assertEquals(entries * 16L, p.position());
        assertEquals(live, map.size());
    }

    @Test
    void directoryScanListsTheThreeVolumes() throws IOException {
        VolumeDirectory.Listing listing = VolumeDirectory.scan(Fixtures.volumes());
        assertEquals(List.of(1L, 2L, 3L), listing.volumes().stream().map(VolumeFiles::volumeId).toList());
        assertTrue(listing.volumes().stream().allMatch(VolumeFiles::hasIndex));
        assertEquals(List.of(), listing.problems());
    }

    private static String sha256(ByteBuffer data) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update(data.duplicate());
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void superBlockRoundTrips() {
        SuperBlock sb = new SuperBlock(2, 0x01, Ttl.of(3, Ttl.DAY), 7, new byte[]{1, 2, 3});
        assertArrayEquals(new byte[]{2, 1, 3, 3, 0, 7, 0, 3, 1, 2, 3}, sb.toBytes());
        assertEquals(11, sb.length());
    }
}
