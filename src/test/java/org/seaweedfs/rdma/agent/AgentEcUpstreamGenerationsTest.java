package org.seaweedfs.rdma.agent;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.protocol.EcInfo;
import org.seaweedfs.rdma.protocol.EcShard;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.AgentSetup;
import org.seaweedfs.rdma.testing.Await;
import org.seaweedfs.rdma.volume.ec.EcTestVolumes;
import org.seaweedfs.rdma.volume.ec.IndependentEcWriter;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * EC generations named as SeaweedFS names them ({@code 1.ec00.v1}, {@code 1.ecx.v1}, {@code 1.vif.v1},
 * {@code 1.ecsum.v1}; generation 0 unsuffixed), written by {@code tools/independent_ec_encode.py} from vacuumed
 * copies of the fixture volume: the newest complete generation is served, a newer one that is not complete waits,
 * shards that fail the generation's checksums are not served (and a rotten shard no checksum file tells of is
 * caught by the needle checksum), and a switch under concurrent reads refuses none, mixes none and answers no live
 * needle 404. Every read is over RDMA and compared byte for byte with the needle as stored.
 */
class AgentEcUpstreamGenerationsTest {

    private static final RegisteredBufferPool.Settings POOL = new RegisteredBufferPool.Settings(64 << 10, 64, 1 << 20,
            16);

    @TempDir
    static Path encoded;

    private static Map<Long, EcNeedleReads.Expected> needles;
    /** The needles vacuumed away by generation 1, and by generation 2 (which removes more). */
    private static Set<Long> gone1;
    private static Set<Long> gone2;
    private static Path gen0;
    private static Path gen1;
    private static Path gen2;

    @TempDir
    Path tmp;

    @BeforeAll
    static void encodeGenerations() throws Exception {
        needles = EcNeedleReads.fixtureNeedles();
        List<Long> keys = new ArrayList<>(needles.keySet());
        gone1 = new TreeSet<>();
        gone2 = new TreeSet<>();
        for (int i = 0; i < keys.size(); i++) {
            if (i % 4 == 0) {
                gone1.add(keys.get(i));
            }
            if (i % 4 == 0 || i % 5 == 1) {
                gone2.add(keys.get(i));
            }
        }
        gen0 = IndependentEcWriter.encodeFixtureWithChecksums(encoded.resolve("gen0"), 10, 4);
        gen1 = encodeGeneration(encoded.resolve("gen1"), 1, gone1);
        gen2 = encodeGeneration(encoded.resolve("gen2"), 2, gone2);
    }

    /** The fixture vacuumed without {@code gone}, erasure-coded as generation N with its checksums. */
    private static Path encodeGeneration(Path staging, int generation, Set<Long> gone) throws Exception {
        EcTestVolumes.writeVacuumedFixture(staging, gone);
        IndependentEcWriter.encode(staging, 10, 4, "--generation", String.valueOf(generation), "--ecsum",
                "--ecsum-block-size", String.valueOf(1 << 20));
        Files.delete(staging.resolve("1.ecj")); // generation 0's journal is the volume's
        return staging;
    }

    @Test
    void theNewestCompleteGenerationIsServedAndAnIncompleteNewerOneWaitsUntilComplete() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("volume"));
        copyAll(gen0, dir);
        copyAll(gen1, dir);
        for (String small : List.of("1.ecx.v2", "1.vif.v2", "1.ecsum.v2")) {
            Files.copy(gen2.resolve(small), dir.resolve(small));
        }
        for (int id = 0; id < 6; id++) {
            Files.copy(shard(gen2, id, 2), shard(dir, id, 2)); // generation 2 has 6 of its 14 shards
        }
        try (AgentHarness agent = new AgentHarness(dir, AgentTestClient.ucxSettings(), AgentSetup.DEFAULTS);
             ReadPathHarness.SidecarSide side = new ReadPathHarness.SidecarSide("tcp", POOL)) {
            AgentTestClient client = AgentTestClient.sidecar(agent);
            assertServes(client, gen1, 1, 14);
            EcNeedleReads path = new EcNeedleReads(side, side.connect(agent.port(), null));
            readEveryNeedle(path, gone1);

            for (int id = 6; id < 14; id++) {
                AgentEcGenerationTest.replace(shard(gen2, id, 2), shard(dir, id, 2));
            }
            long size2 = datSize(gen2);
            Await.until("generation 2 served", () -> AgentTestClient.volume(client, 1).ec(),
                    ec -> ec.datFileSize() == size2 && ec.shards().size() == 14);
            assertServes(client, gen2, 2, 14);
            readEveryNeedle(path, gone2);
        }
    }

    @Test
    void oneRottenShardIsNotServedAndEveryNeedleReads() throws Exception {
        readsWithRottenShards(List.of(2), true);
    }

    @Test
    void twoRottenShardsAreNotServedAndEveryNeedleReads() throws Exception {
        readsWithRottenShards(List.of(2, 11), true);
    }

    @Test
    void aRottenShardNoChecksumFileTellsOfIsCaughtByTheNeedleChecksum() throws Exception {
        readsWithRottenShards(List.of(3), false);
    }

    /**
     * Generation 1 alone, its {@code rotten} shards rotten: before the agent starts (with its {@code .ecsum.v1}: they
     * are never served) or in place once served (without one: only each needle's own CRC tells).
     */
    private void readsWithRottenShards(List<Integer> rotten, boolean checksums) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("volume"));
        copyAll(gen1, dir);
        Files.write(dir.resolve("1.ecj"), new byte[0]);
        if (!checksums) {
            Files.delete(dir.resolve("1.ecsum.v1"));
        } else {
            for (int id : rotten) {
                AgentEcBitrotTest.rot(shard(dir, id, 1));
            }
        }
        try (AgentHarness agent = new AgentHarness(dir, AgentTestClient.ucxSettings(), AgentSetup.DEFAULTS);
             ReadPathHarness.SidecarSide side = new ReadPathHarness.SidecarSide("tcp", POOL)) {
            AgentTestClient client = AgentTestClient.sidecar(agent);
            EcInfo ec = AgentTestClient.volume(client, 1).ec();
            assertEquals(datSize(gen1), ec.datFileSize());
            List<Integer> expected = IntStream.range(0, 14).filter(id -> !checksums || !rotten.contains(id))
                    .boxed().toList();
            assertEquals(expected, ec.shards().stream().map(EcShard::shardId).toList());
            if (!checksums) {
                for (int id : rotten) {
                    AgentEcBitrotTest.rot(shard(dir, id, 1)); // the served mappings see the new bytes
                }
            }
            readEveryNeedle(new EcNeedleReads(side, side.connect(agent.port(), null)), gone1);
        }
    }

    @Test
    void aSwitchUnderConcurrentReadsRefusesNoneMixesNoneAndAnswersNoLiveNeedle404() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("volume"));
        copyAll(gen0, dir);
        try (AgentHarness agent = new AgentHarness(dir, AgentTestClient.ucxSettings(), AgentSetup.DEFAULTS);
             ReadPathHarness.SidecarSide side = new ReadPathHarness.SidecarSide("tcp", POOL)) {
            AgentTestClient client = AgentTestClient.sidecar(agent);
            assertServes(client, gen0, 0, 14);
            long epoch0 = AgentTestClient.volume(client, 1).epoch();
            List<Readers> readers = List.of(
                    new Readers(new EcNeedleReads(side, side.connect(agent.port(), null))),
                    new Readers(new EcNeedleReads(side, side.connect(agent.port(), null))));
            List<Thread> threads = readers.stream().map(r -> new Thread(r, "switch-reader")).toList();
            threads.forEach(Thread::start);
            try {
                Await.until("reads of generation 0", () -> readers.stream().allMatch(r -> r.good.get() > 50));
                // As a copy of generation 1 lands: its small files first, then its shards one by one.
                for (String small : List.of("1.vif.v1", "1.ecsum.v1", "1.ecx.v1")) {
                    AgentEcGenerationTest.replace(gen1.resolve(small), dir.resolve(small));
                }
                for (int id = 0; id < 14; id++) {
                    AgentEcGenerationTest.replace(shard(gen1, id, 1), shard(dir, id, 1));
                }
                Await.until("generation 1 served", () -> AgentTestClient.volume(client, 1),
                        v -> v.epoch() != epoch0 && v.ec().shards().size() == 14);
                assertServes(client, gen1, 1, 14);
                int[] before = readers.stream().mapToInt(r -> r.good.get()).toArray();
                Await.until("reads of generation 1", () -> IntStream.range(0, before.length)
                        .allMatch(i -> readers.get(i).good.get() > before[i] + 50));
            } finally {
                readers.forEach(r -> r.stop.set(true));
                for (Thread t : threads) {
                    t.join();
                }
            }
            for (Readers r : readers) {
                assertEquals(List.of(), List.copyOf(r.problems), "no read refused, wrong or 404 for a live needle");
            }
        }
    }

    /** Reads every needle over and over until stopped; anything but its bytes (or 404 once vacuumed) is a problem. */
    private static final class Readers implements Runnable {
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicInteger good = new AtomicInteger();
        final AtomicInteger vacuumed = new AtomicInteger();
        final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        private final EcNeedleReads path;

        Readers(EcNeedleReads path) {
            this.path = path;
        }

        @Override
        public void run() {
            while (!stop.get()) {
                for (EcNeedleReads.Expected e : needles.values()) {
                    Object got = path.readOrFailure(e.fid());
                    if (got instanceof byte[] bytes && Arrays.equals(bytes, e.data())) {
                        good.incrementAndGet();
                    } else if (got instanceof ReadFailure f && f.kind() == ReadFailure.Kind.NOT_FOUND
                            && gone1.contains(e.fid().key())) {
                        vacuumed.incrementAndGet();
                    } else {
                        problems.add(e.fid() + ": " + (got instanceof ReadFailure f ? f.kind() + " " + f.getMessage()
                                : got instanceof byte[] ? "wrong bytes" : String.valueOf(got)));
                    }
                }
            }
        }
    }

    /** The agent serves the generation in {@code files}: its .dat size, and each listed shard's bytes are its own. */
    private static void assertServes(AgentTestClient client, Path files, int generation, int listed)
            throws Exception {
        Map<Long, byte[][]> shardBytes = new HashMap<>();
        byte[][] shards = new byte[14][];
        for (int id = 0; id < 14; id++) {
            shards[id] = Files.readAllBytes(shard(files, id, generation));
        }
        shardBytes.put(datSize(files), shards);
        AgentEcGenerationTest.assertListedShardsAreOfTheirGeneration(client, shardBytes, listed);
    }

    /** Reads every needle once: the live ones read as stored, the vacuumed ones 404; nothing is refused. */
    private static void readEveryNeedle(EcNeedleReads path, Set<Long> gone) {
        for (EcNeedleReads.Expected e : needles.values()) {
            if (gone.contains(e.fid().key())) {
                assertEquals(ReadFailure.Kind.NOT_FOUND, path.failure(e.fid()), e.fid() + " was vacuumed");
            } else {
                assertArrayEquals(e.data(), path.read(e.fid()), e.fid().toString());
            }
        }
    }

    private static long datSize(Path generation) throws Exception {
        String vif;
        try (var files = Files.list(generation)) {
            vif = Files.readString(files.filter(p -> p.getFileName().toString().startsWith("1.vif")).findFirst()
                    .orElseThrow());
        }
        return Long.parseLong(vif.replaceAll("(?s).*\"datFileSize\": \"(\\d+)\".*", "$1"));
    }

    private static Path shard(Path dir, int id, int generation) {
        return dir.resolve(String.format("1.ec%02d", id) + (generation == 0 ? "" : ".v" + generation));
    }

    private static void copyAll(Path from, Path to) throws Exception {
        try (var files = Files.list(from)) {
            for (Path f : files.toList()) {
                if (!Files.exists(to.resolve(f.getFileName()))) {
                    Files.copy(f, to.resolve(f.getFileName()));
                }
            }
        }
    }
}
