package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.testing.AgentSetup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.protocol.EcInfo;
import org.seaweedfs.rdma.protocol.EcShard;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.volume.ec.EcChecksums;
import org.seaweedfs.rdma.volume.ec.IndependentEcWriter;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * EC volumes with SeaweedFS's {@code .ecsum} bitrot checksums, written by {@code tools/independent_ec_encode.py}
 * from the format description: the file is read and validated as SeaweedFS does, and a shard whose blocks fail
 * their CRC-32C is never served, so no read (direct, or a rebuild from parity) takes its bytes: every needle still
 * reads as stored.
 */
class AgentEcChecksumTest {

    @TempDir
    Path tmp;

    @Test
    void theChecksumFileIsReadAndValidatedAsSeaweedFsDoes() throws Exception {
        Path dir = IndependentEcWriter.encodeFixtureWithChecksums(tmp.resolve("ec"), 10, 4);
        Path ecsum = dir.resolve("1.ecsum");
        EcChecksums.Loaded loaded = EcChecksums.load(ecsum, 0, 10, 4);
        assertEquals(EcChecksums.Status.ON, loaded.status(), loaded.reason());
        assertEquals(1 << 20, loaded.checksums().blockSize());
        for (int id = 0; id < 14; id++) {
            assertEquals(Files.size(dir.resolve(String.format("1.ec%02d", id))), loaded.checksums().coveredSize(id));
            try (FileChannel shard = FileChannel.open(dir.resolve(String.format("1.ec%02d", id)))) {
                assertEquals(List.of(), loaded.checksums().mismatches(id, shard), "shard " + id);
            }
        }
        assertEquals(EcChecksums.Status.OFF, EcChecksums.load(ecsum, 1, 10, 4).status(), "another generation's");
        assertEquals(EcChecksums.Status.OFF, EcChecksums.load(ecsum, 0, 6, 3).status(), "other shard counts");
        assertEquals(EcChecksums.Status.OFF, EcChecksums.load(dir.resolve("absent.ecsum"), 0, 10, 4).status());
        byte[] bytes = Files.readAllBytes(ecsum);
        bytes[bytes.length - 20] ^= 1; // a payload byte: the file's own checksum fails
        EcChecksums.Loaded tampered = EcChecksums.parse(bytes, "1.ecsum", 0, 10, 4);
        assertEquals(EcChecksums.Status.INVALID, tampered.status());
        assertTrue(tampered.reason().contains("payload checksum"), tampered.reason());

        AgentEcBitrotTest.rot(dir.resolve("1.ec02"));
        try (FileChannel shard = FileChannel.open(dir.resolve("1.ec02"))) {
            assertEquals(List.of(0), loaded.checksums().mismatches(2, shard));
        }
    }

    @Test
    void aShardTheChecksumsCallRottenIsNotServedAndItsBytesAreRebuilt() throws Exception {
        Path dir = IndependentEcWriter.encodeFixtureWithChecksums(tmp.resolve("ec"), 10, 4);
        AgentEcBitrotTest.rot(dir.resolve("1.ec02")); // a data shard: its needles are rebuilt
        Files.delete(dir.resolve("1.ec01"));
        AgentEcBitrotTest.rot(dir.resolve("1.ec10")); // a parity shard the rebuild of shard 1 would otherwise take
        Map<Long, EcNeedleReads.Expected> needles = EcNeedleReads.fixtureNeedles();
        try (AgentHarness agent = new AgentHarness(dir, AgentTestClient.ucxSettings(), AgentSetup.DEFAULTS);
             ReadPathHarness.SidecarSide side = new ReadPathHarness.SidecarSide("tcp",
                     new RegisteredBufferPool.Settings(64 << 10, 64, 1 << 20, 16))) {
            AgentTestClient client = AgentTestClient.sidecar(agent);
            EcInfo info = AgentTestClient.volume(client, 1).ec();
            assertEquals(IntStream.range(0, 14).filter(id -> id != 1 && id != 2 && id != 10).boxed().toList(),
                    info.shards().stream().map(EcShard::shardId).toList(), "the rotten shards are not served");
            EcNeedleReads path = new EcNeedleReads(side, side.connect(agent.port(), null));
            for (EcNeedleReads.Expected e : needles.values()) {
                assertArrayEquals(e.data(), path.read(e.fid()), e.fid().toString());
            }
        }
    }
}
