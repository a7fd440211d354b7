package org.seaweedfs.rdma.volume.ec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NeedleRecord;
import org.seaweedfs.rdma.volume.Volume;
import org.seaweedfs.rdma.volume.VolumeFiles;
import org.seaweedfs.rdma.volume.VolumeFormatException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ec_test.go's TestEncodingDecoding on the same file: encode SeaweedFS's 1.dat/1.idx with its small test block
 * sizes, then every needle located through the EC layout must read the bytes it has in the .dat; plus parity
 * rebuilding missing shards, and custom shard counts.
 */
class EcVolumeFixtureTest {

    @TempDir
    Path dir;

    @Test
    void everyNeedleReadsTheSameBytesThroughTheLayout() throws IOException {
        EcWriter.Result result = EcTestVolumes.encodeFixture(dir, 10, 4);
        assertEquals(298, result.liveNeedles());
        long datSize = Files.size(EcTestVolumes.fixtureDat());
        assertEquals(new EcLayout(10, 4, 10_000, 100).shardFileSize(datSize), result.shardSize());
        for (int i = 0; i < 14; i++) {
            assertEquals(result.shardSize(), Files.size(result.files().shard(i)));
        }
        assertEquals(298 * 16, Files.size(result.files().ecx()));
        assertEquals(0, Files.size(result.files().ecj()));
        EcVolumeInfo info = EcVolumeInfo.read(result.files().vif());
        assertEquals(EcVolumeInfo.of(3, datSize, 10, 4), info);
        assertEquals(298, compareAll(dir, 10_000, 100));
    }

    @Test
    void shardsAreTheDatCutIntoRowsWithParity() throws IOException {
        // Independent of the locator: rebuild the .dat by walking rows, block i of a row from shard i % 10.
        EcWriter.Result result = EcTestVolumes.encodeFixture(dir, 10, 4);
        byte[] dat = Files.readAllBytes(EcTestVolumes.fixtureDat());
        byte[][] shards = readShards(result.files(), 14);
        int largeRows = dat.length / 100_000;
        int pos = 0;
        int shardPos = 0;
        for (int row = 0; pos < dat.length; row++) {
            int block = row < largeRows ? 10_000 : 100;
            for (int i = 0; i < 10 && pos < dat.length; i++) {
                int n = Math.min(block, dat.length - pos);
                assertArrayEquals(java.util.Arrays.copyOfRange(dat, pos, pos + n),
                        java.util.Arrays.copyOfRange(shards[i], shardPos, shardPos + n), "row " + row + " block " + i);
                pos += block;
            }
            shardPos += block;
        }
        ReedSolomon rs = new ReedSolomon(10, 4);
        byte[][] check = new byte[14][];
        for (int i = 0; i < 14; i++) {
            check[i] = i < 10 ? shards[i] : new byte[shards[i].length];
        }
        rs.encodeParity(check, 0, shards[0].length);
        for (int i = 10; i < 14; i++) {
            assertArrayEquals(shards[i], check[i], "parity shard " + i);
        }
    }

    @Test
    void parityRebuildsAnyMissingShards() throws IOException {
        EcWriter.Result result = EcTestVolumes.encodeFixture(dir, 10, 4);
        byte[][] original = readShards(result.files(), 14);
        ReedSolomon rs = new ReedSolomon(10, 4);
        Random random = new Random(13);
        for (int missing = 1; missing <= 4; missing++) {
            boolean[] present = new boolean[14];
            java.util.Arrays.fill(present, true);
            byte[][] shards = new byte[14][];
            List<Integer> removed = new ArrayList<>();
            while (removed.size() < missing) {
                int id = random.nextInt(14);
                if (present[id]) {
                    present[id] = false;
                    removed.add(id);
                }
            }
            for (int i = 0; i < 14; i++) {
                shards[i] = present[i] ? original[i].clone() : new byte[original[i].length];
            }
            rs.reconstruct(shards, present, 0, original[0].length);
            for (int id : removed) {
                assertArrayEquals(original[id], shards[id], "rebuilt shard " + id + " of " + removed);
            }
        }
    }

    @Test
    void needlesReadRightWithUpToParityDataShardsMissing() throws IOException {
        EcTestVolumes.encodeFixture(dir, 10, 4);
        EcFiles files = new EcFiles(dir, "", 1);
        int[][] removals = {{0}, {3}, {7, 9}}; // cumulative: 1, 2, then 4 data shards missing
        for (int[] removal : removals) {
            for (int id : removal) {
                Files.deleteIfExists(files.shard(id));
            }
            assertEquals(298, compareAll(dir, 10_000, 100));
        }
        Files.delete(files.shard(8));
        try (EcVolume ec = EcVolume.open(files, IndexFormat.OFFSET4, 10_000, 100)) {
            EcIndex.Entry any = ec.lookup(ec.index().entryCount() > 0 ? firstKey(ec) : 0);
            assertNotNull(any);
            VolumeFormatException e = assertThrows(VolumeFormatException.class, () -> {
                for (long key : keys(ec)) {
                    EcIndex.Entry entry = ec.lookup(key);
                    ec.readRecord(entry.offset(), entry.size());
                }
            });
            assertTrue(e.getMessage().contains("shards needed to rebuild"), e.getMessage());
        }
    }

    @Test
    void customShardCountsComeFromTheVif() throws IOException {
        EcWriter.Result result = EcTestVolumes.encodeFixture(dir, 6, 3);
        String vif = Files.readString(result.files().vif());
        assertTrue(vif.contains("\"dataShards\": 6") && vif.contains("\"parityShards\": 3"), vif);
        assertTrue(Files.exists(result.files().shard(8)));
        assertTrue(Files.notExists(result.files().shard(9)));
        try (EcVolume ec = EcVolume.open(result.files(), IndexFormat.OFFSET4, 10_000, 100)) {
            assertEquals(6, ec.layout().dataShards());
            assertEquals(3, ec.layout().parityShards());
        }
        assertEquals(298, compareAll(dir, 10_000, 100));
        for (int id : new int[]{0, 4, 7}) {
            Files.delete(result.files().shard(id));
        }
        assertEquals(298, compareAll(dir, 10_000, 100));
    }

    @Test
    void deletedIdsFromTheJournalAreNotFound() throws IOException {
        EcTestVolumes.encodeFixture(dir, 10, 4);
        EcFiles files = new EcFiles(dir, "", 1);
        try (EcVolume ec = EcVolume.open(files, IndexFormat.OFFSET4, 10_000, 100)) {
            List<Long> keys = keys(ec);
            long victim = keys.get(17);
            assertNotNull(ec.lookup(victim));
            ByteBuffer ids = ByteBuffer.allocate(12).putLong(victim).putInt(0x0102_0304);
            Files.write(files.ecj(), ids.array());
            assertEquals(1, ec.followDeletions());
            assertNull(ec.lookup(victim));
            assertNotNull(ec.lookup(keys.get(18)));
            assertEquals(8, ec.deletions().position(), "a partial id waits for the rest");
        }
    }

    @Test
    void realBlockSizesReadRightToo() throws IOException {
        EcWriter.Result result = EcTestVolumes.encodeFixtureRealBlocks(dir, "pics", 10, 4);
        assertEquals(EcLayout.SMALL_BLOCK, result.shardSize());
        assertEquals(298, compareAll(dir, "pics", EcLayout.LARGE_BLOCK, EcLayout.SMALL_BLOCK));
    }

    @Test
    void ecxIsSortedAndBinarySearchFindsEveryKey() throws IOException {
        EcTestVolumes.encodeFixture(dir, 10, 4);
        try (EcIndex index = EcIndex.open(new EcFiles(dir, "", 1).ecx(), IndexFormat.OFFSET4)) {
            List<Long> keys = new ArrayList<>();
            index.forEachLive((key, offset, size) -> keys.add(key));
            assertEquals(298, keys.size());
            for (long key : keys) {
                assertEquals(key, index.find(key).key());
            }
            assertNull(index.find(keys.get(keys.size() - 1) + 1));
            assertNull(index.find(0));
        }
    }

    @Test
    void anUnsortedOrTruncatedEcxIsAFormatError() throws IOException {
        EcTestVolumes.encodeFixture(dir, 10, 4);
        Path ecx = new EcFiles(dir, "", 1).ecx();
        byte[] bytes = Files.readAllBytes(ecx);
        byte[] swapped = bytes.clone();
        System.arraycopy(bytes, 0, swapped, 16, 16);
        System.arraycopy(bytes, 16, swapped, 0, 16);
        Files.write(ecx, swapped);
        try (EcIndex index = EcIndex.open(ecx, IndexFormat.OFFSET4)) {
            VolumeFormatException e =
                    assertThrows(VolumeFormatException.class, () -> index.forEachLive((k, o, s) -> { }));
            assertEquals("key", e.field());
        }
        Files.write(ecx, java.util.Arrays.copyOf(bytes, bytes.length - 3));
        VolumeFormatException e =
                assertThrows(VolumeFormatException.class, () -> EcIndex.open(ecx, IndexFormat.OFFSET4));
        assertEquals("index length", e.field());
    }

    @Test
    void aShardOfTheWrongLengthIsAFormatError() throws IOException {
        EcWriter.Result result = EcTestVolumes.encodeFixture(dir, 10, 4);
        Path shard = result.files().shard(3);
        byte[] bytes = Files.readAllBytes(shard);
        Files.write(shard, java.util.Arrays.copyOf(bytes, bytes.length - 100));
        VolumeFormatException e = assertThrows(VolumeFormatException.class,
                () -> EcVolume.open(result.files(), IndexFormat.OFFSET4, 10_000, 100));
        assertEquals("shard length", e.field());
    }

    /** Reads every live needle of volume 1 through the EC layout and compares it with the .dat; returns the count. */
    static int compareAll(Path dir, long large, long small) throws IOException {
        return compareAll(dir, "", large, small);
    }

    static int compareAll(Path dir, String collection, long large, long small) throws IOException {
        int compared = 0;
        try (EcVolume ec = EcVolume.open(new EcFiles(dir, collection, 1), IndexFormat.OFFSET4, large, small);
             Volume dat = Volume.open(VolumeFiles.of(EcTestVolumes.fixtureDat()), IndexFormat.OFFSET4)) {
            for (long key : keys(ec)) {
                EcIndex.Entry entry = ec.lookup(key);
                int slot = dat.map().slotOf(key);
                assertEquals(dat.map().offsetAt(slot), entry.offset());
                assertEquals(dat.map().sizeAt(slot), entry.size());
                ByteBuffer fromEc = ec.readRecord(entry.offset(), entry.size());
                ByteBuffer fromDat = dat.readRecord(entry.offset(), entry.size());
                assertEquals(fromDat, fromEc, "needle " + Long.toHexString(key));
                NeedleRecord needle = NeedleRecord.parse(fromEc, 0, ec.version(), "ec", entry.offset());
                assertTrue(needle.verify().isGood(), "checksum of " + Long.toHexString(key));
                compared++;
            }
        }
        return compared;
    }

    static List<Long> keys(EcVolume ec) throws IOException {
        List<Long> keys = new ArrayList<>();
        ec.index().forEachLive((key, offset, size) -> keys.add(key));
        return keys;
    }

    private static long firstKey(EcVolume ec) throws IOException {
        return keys(ec).get(0);
    }

    static byte[][] readShards(EcFiles files, int total) throws IOException {
        byte[][] shards = new byte[total][];
        for (int i = 0; i < total; i++) {
            shards[i] = Files.readAllBytes(files.shard(i));
        }
        return shards;
    }
}
