package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.testing.AgentSetup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.protocol.EcInfo;
import org.seaweedfs.rdma.protocol.EcShard;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.Await;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.ec.EcFiles;
import org.seaweedfs.rdma.volume.ec.EcLayout;
import org.seaweedfs.rdma.volume.ec.EcTestVolumes;
import org.seaweedfs.rdma.volume.ec.EcWriter;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * A vacuumed EC volume's new generation replacing the old one while a sidecar reads it: generation 1's
 * {@code 1.ecx.v1} and {@code 1.vif.v1} appear beside generation 0's files and its shards replace the old ones one
 * by one under their unchanged names, as SeaweedFS names them. At every step every shard the agent lists holds the
 * bytes of the generation its listing describes (never one of the other), and reads running throughout never
 * answer wrong bytes: a needle reads as it was stored, or, in the window where neither generation has enough
 * shards, fails retriably.
 */
class AgentEcGenerationTest {

    @TempDir
    Path tmp;

    @Test
    void aVacuumedGenerationReplacesTheOldOneUnderReadsWithoutMixing() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("volume"));
        EcWriter.Result gen0 = EcTestVolumes.encodeFixture(dir, 10, 4);
        Map<Long, EcNeedleReads.Expected> needles = EcNeedleReads.fixtureNeedles();
        List<Long> keys = new ArrayList<>(needles.keySet());
        List<Long> vacuumed = new ArrayList<>();
        for (int i = 0; i < keys.size(); i += 4) {
            vacuumed.add(keys.get(i)); // a quarter of the needles deleted, then vacuumed away
        }
        Path staging = Files.createDirectories(tmp.resolve("staging"));
        EcWriter.Result gen1 = encodeVacuumed(staging, vacuumed);
        assertNotEquals(gen0.shardSize(), gen1.shardSize(), "the vacuum shrank the shards");
        Map<Long, byte[][]> shardBytes = Map.of(gen0.info().datFileSize(), readShards(gen0.files()),
                gen1.info().datFileSize(), readShards(gen1.files()));

        try (AgentHarness agent = new AgentHarness(dir, AgentTestClient.ucxSettings(),
                AgentSetup.ecVolumes());
             ReadPathHarness.SidecarSide side = new ReadPathHarness.SidecarSide("tcp",
                     new RegisteredBufferPool.Settings(64 << 10, 64, 1 << 20, 16))) {
            AgentTestClient client = AgentTestClient.sidecar(agent);
            EcNeedleReads path = new EcNeedleReads(side, side.connect(agent.port(), null));
            Reads reads = new Reads(path, needles, vacuumed);
            Thread readers = new Thread(reads, "generation-readers");
            readers.start();
            try {
                Await.until("reads under generation 0", () -> reads.good.get() > 50);
                assertListedShardsAreOfTheirGeneration(client, shardBytes, 14);

                // Shards 0..6 are replaced by generation 1's before its index appears: generation 0 drops each.
                for (int id = 0; id <= 6; id++) {
                    replace(gen1.files().shard(id), dir.resolve(gen0.files().shard(id).getFileName()));
                    int shard = id;
                    Await.until("generation 0 no longer lists shard " + id,
                            () -> AgentTestClient.volume(client, 1).ec(), ec -> ec.shard(shard) == null);
                    assertListedShardsAreOfTheirGeneration(client, shardBytes, 13 - id);
                }
                // Generation 1 becomes complete: served at once, with the shards of its own that are there.
                switchToGeneration1(client, dir, gen1, shardBytes, 7);
                shardsArrive(client, dir, gen1, 7, shardBytes);
                int goodBefore = reads.good.get();
                Await.until("reads under generation 1", () -> reads.good.get() > goodBefore + 50);
            } finally {
                reads.stop.set(true);
                readers.join();
            }
            assertEquals(List.of(), List.copyOf(reads.wrong), "no read answered wrong bytes");
            assertEquals(List.of(), List.copyOf(reads.corrupt), "no read assembled bytes of two generations");
            // Settled: every needle of generation 1 reads; the vacuumed ones are gone.
            for (Map.Entry<Long, EcNeedleReads.Expected> e : needles.entrySet()) {
                if (vacuumed.contains(e.getKey())) {
                    assertEquals(ReadFailure.Kind.NOT_FOUND, path.failure(e.getValue().fid()));
                } else {
                    assertArrayEquals(e.getValue().data(), path.read(e.getValue().fid()));
                }
            }
        }
    }

    @Test
    void aShardTheOlderGenerationServedIsNotServedByTheNewOneEvenAtTheSameSize() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("volume"));
        EcWriter.Result gen0 = EcTestVolumes.encodeFixture(dir, 10, 4);
        Map<Long, EcNeedleReads.Expected> needles = EcNeedleReads.fixtureNeedles();
        EcWriter.Result gen1 = null;
        for (long key : needles.keySet()) { // a vacuum that removes one small needle keeps the shard size
            Path staging = Files.createDirectories(tmp.resolve("staging-" + key));
            EcWriter.Result candidate = encodeVacuumed(staging, List.of(key));
            if (candidate.shardSize() == gen0.shardSize()) {
                gen1 = candidate;
                break;
            }
        }
        Objects.requireNonNull(gen1, "a needle whose removal keeps the shard size");
        Map<Long, byte[][]> shardBytes = Map.of(gen0.info().datFileSize(), readShards(gen0.files()),
                gen1.info().datFileSize(), readShards(gen1.files()));
        try (AgentHarness agent = new AgentHarness(dir, AgentTestClient.ucxSettings(),
                AgentSetup.ecVolumes())) {
            AgentTestClient client = AgentTestClient.sidecar(agent);
            long epoch0 = AgentTestClient.volume(client, 1).epoch();
            replace(gen1.files().vif(), dir.resolve("1.vif.v1"));
            replace(gen1.files().ecx(), dir.resolve("1.ecx.v1"));
            // Generation 1 has none of its shards: generation 0, complete, is served while they replace its own.
            for (int id = 0; id <= 5; id++) {
                replace(gen1.files().shard(id), dir.resolve(gen0.files().shard(id).getFileName()));
                int shard = id;
                Await.until("generation 0 no longer lists shard " + id,
                        () -> AgentTestClient.volume(client, 1).ec(), ec -> ec.shard(shard) == null);
                assertEquals(epoch0, AgentTestClient.volume(client, 1).epoch(), "generation 0 is still served");
                assertListedShardsAreOfTheirGeneration(client, shardBytes, 13 - id);
            }
            // The seventh: generation 1 serves as many shards as generation 0 has left, and takes over.
            replace(gen1.files().shard(6), dir.resolve(gen0.files().shard(6).getFileName()));
            Await.until("generation 1 served", () -> AgentTestClient.volume(client, 1).epoch(), e -> e != epoch0);
            assertListedShardsAreOfTheirGeneration(client, shardBytes, 7);
            shardsArrive(client, dir, gen1, 7, shardBytes);
        }
    }

    /** Generation 1's .vif.v1 then .ecx.v1 appear: served under a new epoch with {@code listed} shards. */
    private static void switchToGeneration1(AgentTestClient client, Path dir, EcWriter.Result gen1,
                                            Map<Long, byte[][]> shardBytes, int listed) throws Exception {
        long epoch0 = AgentTestClient.volume(client, 1).epoch();
        replace(gen1.files().vif(), dir.resolve("1.vif.v1"));
        replace(gen1.files().ecx(), dir.resolve("1.ecx.v1"));
        VolumeInfo switched = Await.until("generation 1 served", () -> AgentTestClient.volume(client, 1),
                v -> v.epoch() != epoch0);
        assertEquals(gen1.info().datFileSize(), switched.ec().datFileSize());
        assertListedShardsAreOfTheirGeneration(client, shardBytes, listed);
    }

    /** Generation 1's shards from {@code first} on replace the old ones: all 14 are then served. */
    private static void shardsArrive(AgentTestClient client, Path dir, EcWriter.Result gen1, int first,
                                     Map<Long, byte[][]> shardBytes) throws Exception {
        for (int id = first; id < 14; id++) {
            replace(gen1.files().shard(id), dir.resolve(gen1.files().shard(id).getFileName()));
        }
        Await.until("generation 1 serves all its shards", () -> AgentTestClient.volume(client, 1).ec(),
                ec -> ec.shards().size() == 14);
        assertListedShardsAreOfTheirGeneration(client, shardBytes, 14);
    }

    /** Each shard listed has, byte for byte, the content of the generation whose .dat size the listing carries. */
    static void assertListedShardsAreOfTheirGeneration(AgentTestClient client, Map<Long, byte[][]> shardBytes,
                                                               int listed) throws Exception {
        VolumeInfo volume = AgentTestClient.volume(client, 1);
        EcInfo ec = volume.ec();
        byte[][] generation = Objects.requireNonNull(shardBytes.get(ec.datFileSize()), "a known generation");
        assertEquals(listed, ec.shards().size(), "shards listed: " + ec.shards().stream().map(EcShard::shardId)
                .toList());
        for (EcShard shard : ec.shards()) {
            byte[] got = client.get(new VolumeInfo(1, "", 3, volume.epoch(), ec.shardSize(), 0, shard.segments()),
                    0, (int) ec.shardSize());
            assertArrayEquals(generation[shard.shardId()], got, "shard " + shard.shardId() + " of the listing");
        }
    }

    static void replace(Path from, Path to) throws Exception {
        Path staged = to.resolveSibling(to.getFileName() + ".copying");
        Files.copy(from, staged);
        Files.move(staged, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static byte[][] readShards(EcFiles files) throws Exception {
        byte[][] shards = new byte[14][];
        for (int id = 0; id < 14; id++) {
            shards[id] = Files.readAllBytes(files.shard(id));
        }
        return shards;
    }

    /** The fixture compacted without {@code removed} (compaction revision + 1), then erasure-coded. */
    private static EcWriter.Result encodeVacuumed(Path staging, List<Long> removed) throws Exception {
        EcTestVolumes.writeVacuumedFixture(staging, removed);
        Path dat = staging.resolve("1.dat");
        Path idx = staging.resolve("1.idx");
        return EcWriter.write(dat, idx, new EcFiles(Files.createDirectories(staging.resolve("ec")), "", 1),
                new EcLayout(10, 4, EcTestVolumes.TEST_LARGE_BLOCK, EcTestVolumes.TEST_SMALL_BLOCK),
                IndexFormat.OFFSET4, EcTestVolumes.ENCODE_TS_NS + 1);
    }


    /** Reads every needle over and over until stopped, sorting each answer. */
    private static final class Reads implements Runnable {
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicInteger good = new AtomicInteger();
        final ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<String> corrupt = new ConcurrentLinkedQueue<>();
        private final EcNeedleReads path;
        private final Map<Long, EcNeedleReads.Expected> needles;
        private final List<Long> vacuumed;

        Reads(EcNeedleReads path, Map<Long, EcNeedleReads.Expected> needles, List<Long> vacuumed) {
            this.path = path;
            this.needles = needles;
            this.vacuumed = vacuumed;
        }

        @Override
        public void run() {
            while (!stop.get()) {
                for (EcNeedleReads.Expected e : needles.values()) {
                    Object got = path.readOrFailure(e.fid());
                    if (got instanceof byte[] bytes) {
                        if (Arrays.equals(bytes, e.data())) {
                            good.incrementAndGet();
                        } else {
                            wrong.add(e.fid().toString());
                        }
                    } else if (got instanceof ReadFailure f && f.kind() == ReadFailure.Kind.CORRUPT) {
                        corrupt.add(e.fid() + ": " + f.getMessage());
                    } else if (got instanceof ReadFailure f && f.kind() == ReadFailure.Kind.NOT_FOUND
                            && !vacuumed.contains(e.fid().key())) {
                        wrong.add(e.fid() + ": " + f.getMessage());
                    }
                }
            }
        }
    }
}
