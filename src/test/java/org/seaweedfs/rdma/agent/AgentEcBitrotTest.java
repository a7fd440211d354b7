package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.testing.AgentSetup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.protocol.EcInfo;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.Await;
import org.seaweedfs.rdma.volume.ec.EcTestVolumes;
import org.seaweedfs.rdma.volume.ec.EcWriter;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * Shards rotten on disk after they were served (bytes changed in place: the agent's mappings see them), with no
 * {@code .ecsum} to tell: a record assembled from a rotten shard fails its needle checksum, and the sidecar reads
 * it again from another set of shards. Every needle still reads as stored: a rotten data shard read directly, and a
 * rotten parity shard that a rebuild of a missing data shard would use.
 */
class AgentEcBitrotTest {

    @TempDir
    Path tmp;

    @Test
    void aRottenDataShardIsCaughtByTheNeedleChecksumAndTheRecordRebuiltFromOthers() throws Exception {
        EcWriter.Result ec = EcTestVolumes.encodeFixture(Files.createDirectories(tmp.resolve("volume")), 10, 4);
        readsEveryNeedleAsStored(ec, 14, () -> rot(ec.files().shard(2)));
    }

    @Test
    void aRottenParityShardIsNotTrustedForTheRebuildOfAMissingDataShard() throws Exception {
        EcWriter.Result ec = EcTestVolumes.encodeFixture(Files.createDirectories(tmp.resolve("volume")), 10, 4);
        readsEveryNeedleAsStored(ec, 13, () -> {
            Files.delete(ec.files().shard(1));
            rot(ec.files().shard(10)); // the first parity shard: the rebuild of shard 1 would take it
        });
    }

    /** Starts an agent and a sidecar, damages the shards, and reads every needle: all must read as stored. */
    private static void readsEveryNeedleAsStored(EcWriter.Result ec, int listed, Damage damage) throws Exception {
        Map<Long, EcNeedleReads.Expected> needles = EcNeedleReads.fixtureNeedles();
        try (AgentHarness agent = new AgentHarness(ec.files().dir(), AgentTestClient.ucxSettings(),
                AgentSetup.ecVolumes());
             ReadPathHarness.SidecarSide side = new ReadPathHarness.SidecarSide("tcp",
                     new RegisteredBufferPool.Settings(64 << 10, 64, 1 << 20, 16))) {
            AgentTestClient client = AgentTestClient.sidecar(agent);
            damage.apply();
            EcInfo info = Await.until("the damage seen", () -> AgentTestClient.volume(client, 1).ec(),
                    e -> e.shards().size() == listed);
            EcNeedleReads path = new EcNeedleReads(side, side.connect(agent.port(), null));
            for (EcNeedleReads.Expected e : needles.values()) {
                assertArrayEquals(e.data(), path.read(e.fid()), e.fid() + " with shards " + info.shards().size());
            }
        }
    }

    @FunctionalInterface
    private interface Damage {
        void apply() throws Exception;
    }

    /** Flips every byte of the shard in place (same file, so its served mappings see the change). */
    static void rot(Path shard) throws Exception {
        EcTestVolumes.rot(shard);
    }
}
