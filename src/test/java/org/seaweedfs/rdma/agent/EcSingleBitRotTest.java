package org.seaweedfs.rdma.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.protocol.EcInfo;
import org.seaweedfs.rdma.protocol.EcShard;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.ec.EcShardReader;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.AgentSetup;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NeedleLayout;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.VolumeWriter;
import org.seaweedfs.rdma.volume.ec.EcChecksums;
import org.seaweedfs.rdma.volume.ec.EcInterval;
import org.seaweedfs.rdma.volume.ec.EcLayout;
import org.seaweedfs.rdma.volume.ec.IndependentEcWriter;

/**
 * One bit rotten inside one needle's data, in one shard of a 3 + 2 volume of 3 MiB shards: the bit lies in the
 * last, partial block of a {@code .ecsum} of 2 MiB blocks. With the {@code .ecsum} the agent finds that block
 * wrong and does not serve the shard, and its bytes are rebuilt from the others. Without it only the needle's CRC
 * tells: the record is read again distrusting the shard it came from, whose bytes are rebuilt. Either way every
 * needle reads as stored, and the reader's counters name the shard.
 */
class EcSingleBitRotTest {

    private static final long VOLUME = 1;
    private static final int DATA_SHARDS = 3;
    private static final int PARITY_SHARDS = 2;
    private static final int ECSUM_BLOCK = 2 << 20;
    /** About the .dat's length: three rows of 1 MiB blocks (3 MiB shards), the last row partly padding. */
    private static final long DAT_BYTES = 7L << 20;

    @TempDir
    Path dir;

    private final Map<FileId, byte[]> needles = new LinkedHashMap<>();
    /** The needle whose data has the rotten bit: its record (offset, length in the .dat) and where it lies. */
    private FileId rotten;
    private long rottenOffset;
    private long rottenLength;
    private EcInterval rottenAt;

    @Test
    void aBitTheChecksumsFindInTheLastPartialBlockKeepsItsShardUnservedAndItsBytesAreRebuilt() throws Exception {
        encodeAndRot("--ecsum", "--ecsum-block-size", String.valueOf(ECSUM_BLOCK));
        EcChecksums.Loaded loaded = EcChecksums.load(dir.resolve(VOLUME + ".ecsum"), 0, DATA_SHARDS, PARITY_SHARDS);
        assertEquals(EcChecksums.Status.ON, loaded.status(), loaded.reason());
        int shard = rottenAt.shardId();
        long covered = loaded.checksums().coveredSize(shard);
        assertTrue(covered > ECSUM_BLOCK && covered % ECSUM_BLOCK != 0, "several blocks, the last partial: "
                + covered);
        for (int id = 0; id < DATA_SHARDS + PARITY_SHARDS; id++) {
            try (FileChannel ch = FileChannel.open(dir.resolve(String.format("%d.ec%02d", VOLUME, id)))) {
                assertEquals(id == shard ? List.of(1) : List.of(), loaded.checksums().mismatches(id, ch),
                        "the mismatching blocks of shard " + id);
            }
        }
        readEveryNeedle((info, path) -> {
            assertFalse(info.shards().stream().map(EcShard::shardId).toList().contains(shard),
                    "the rotten shard is not served: " + info.shards());
            assertArrayEquals(needles.get(rotten), path.read(rotten), rotten.toString());
            assertTrue(path.shards().rebuiltIntervals(shard) >= 1, "its bytes were rebuilt");
            assertEquals(0, path.counters().ecRereads(), "no record failed its checksum");
        });
    }

    @Test
    void aBitOnlyTheNeedleChecksumFindsIsReadAgainDistrustingItsShard() throws Exception {
        encodeAndRot();
        int shard = rottenAt.shardId();
        readEveryNeedle((info, path) -> {
            assertEquals(DATA_SHARDS + PARITY_SHARDS, info.shards().size(), "no .ecsum: every shard served");
            assertEquals(shard, EcShardReader.distrustOrder(info, rottenOffset, rottenLength).get(0),
                    "the record's shard is distrusted first");
            assertArrayEquals(needles.get(rotten), path.read(rotten), rotten.toString());
            assertEquals(1, path.counters().ecRereads(), "read again once, distrusting its shard");
            assertEquals(1, path.shards().rebuiltIntervals(shard), "whose interval was rebuilt from the others");
        });
    }

    @FunctionalInterface
    private interface Check {
        void check(EcInfo info, EcNeedleReads path) throws Exception;
    }

    /** Starts an agent on the volume and a sidecar; runs {@code first}, then reads every needle: all as stored. */
    private void readEveryNeedle(Check first) throws Exception {
        try (AgentHarness agent = new AgentHarness(dir, AgentTestClient.ucxSettings(), AgentSetup.DEFAULTS);
             ReadPathHarness.SidecarSide side = new ReadPathHarness.SidecarSide("tcp",
                     new RegisteredBufferPool.Settings(64 << 10, 64, 1 << 20, 16))) {
            EcInfo info = AgentTestClient.volume(AgentTestClient.sidecar(agent), VOLUME).ec();
            assertNotNull(info, "volume " + VOLUME + " is served erasure-coded");
            EcNeedleReads path = new EcNeedleReads(side, side.connect(agent.port(), null));
            first.check(info, path);
            for (Map.Entry<FileId, byte[]> e : needles.entrySet()) {
                assertArrayEquals(e.getValue(), path.read(e.getKey()), e.getKey().toString());
            }
        }
    }

    /**
     * Writes the volume (needles of 60 to 120 KB of random bytes), erasure-codes it with the independent writer
     * ({@code options} added), and flips one bit in the middle of the data of the first needle whose record lies in
     * one shard interval past the first {@code .ecsum} block.
     */
    private void encodeAndRot(String... options) throws Exception {
        Random random = new Random(21);
        List<Long> offsets = new java.util.ArrayList<>();
        try (VolumeWriter writer = VolumeWriter.create(dir, "", VOLUME, 3, IndexFormat.OFFSET4)) {
            for (int key = 1; offsets.isEmpty() || offsets.get(offsets.size() - 1) < DAT_BYTES; key++) {
                byte[] data = new byte[60_000 + random.nextInt(60_000)];
                random.nextBytes(data);
                offsets.add(writer.append(NewNeedle.builder(key, key, data).appendAtNs(key).build()));
                needles.put(new FileId(VOLUME, key, key), data);
            }
        }
        long datBytes = java.nio.file.Files.size(dir.resolve(VOLUME + ".dat"));
        offsets.add(datBytes); // records follow each other: each ends where the next starts
        EcLayout layout = EcLayout.of(DATA_SHARDS, PARITY_SHARDS);
        List<FileId> fids = List.copyOf(needles.keySet());
        for (int i = 0; i < fids.size() && rotten == null; i++) {
            long length = offsets.get(i + 1) - offsets.get(i);
            List<EcInterval> at = layout.locate(layout.shardDatSize(datBytes, 0), offsets.get(i), length);
            if (at.size() == 1 && at.get(0).shardOffset() >= ECSUM_BLOCK) {
                rotten = fids.get(i);
                rottenOffset = offsets.get(i);
                rottenLength = length;
                rottenAt = at.get(0);
            }
        }
        assertNotNull(rotten, "a needle in the last .ecsum block of a shard");
        IndependentEcWriter.encode(dir, DATA_SHARDS, PARITY_SHARDS, options);
        // The middle of its data (past the 16-byte header and the 4-byte data size).
        long bit = rottenAt.shardOffset() + NeedleLayout.HEADER_SIZE + NeedleLayout.DATA_SIZE_FIELD
                + needles.get(rotten).length / 2;
        try (FileChannel shard = FileChannel.open(dir.resolve(String.format("%d.ec%02d", VOLUME,
                rottenAt.shardId())), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            shard.read(one, bit);
            one.put(0, (byte) (one.get(0) ^ 0x10)).rewind();
            shard.write(one, bit);
        }
    }
}
