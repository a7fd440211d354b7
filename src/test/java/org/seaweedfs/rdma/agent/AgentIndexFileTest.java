package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.testing.AgentSetup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.protocol.Lookup;
import org.seaweedfs.rdma.protocol.LookupResult;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.Await;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.SortedNeedleIndex;
import org.seaweedfs.rdma.volume.SuperBlock;
import org.seaweedfs.rdma.volume.Ttl;
import org.seaweedfs.rdma.volume.VolumeWriter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.agent.AgentTestClient.sidecar;

/**
 * The agent's index file across restarts: mapped and trusted only when intact and made from the {@code .idx} as it
 * is, with only the entries written since replayed; rebuilt when corrupt or stale; kept where configured.
 */
class AgentIndexFileTest {

    private static final long VOLUME = 9;

    @TempDir
    Path tmp;

    /** key -> offset of the live needles (cookie = key * 3), and the keys deleted. */
    private final Map<Long, Long> live = new HashMap<>();
    private final Map<Long, Boolean> deleted = new HashMap<>();

    private Path volumeDir() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("volumes"));
        try (VolumeWriter writer = VolumeWriter.create(dir, "", VOLUME, 3, IndexFormat.OFFSET4)) {
            for (long key = 1; key <= 300; key++) {
                live.put(key, writer.append(needle(key, 1)));
            }
            for (long key = 7; key <= 300; key += 7) {
                delete(writer, key);
            }
        }
        return dir;
    }

    private static NewNeedle needle(long key, int version) {
        byte[] data = new byte[20 + (int) (key % 50)];
        java.util.Arrays.fill(data, (byte) (key * version));
        return NewNeedle.builder(key, (int) key * 3, data).appendAtNs(key * 10 + version).build();
    }

    private void delete(VolumeWriter writer, long key) throws IOException {
        writer.delete(key, (int) key * 3, key * 10 + 9);
        live.remove(key);
        deleted.put(key, true);
    }

    private void assertServes(Path dir, AgentSetup setup) throws Exception {
        try (AgentHarness h = new AgentHarness(dir, AgentTestClient.ucxSettings(), setup)) {
            assertServes(sidecar(h), 1);
        }
    }

    /** Every {@code stride}-th live needle (by key) is found where it was written; no deleted one is found. */
    private void assertServes(AgentTestClient client, int stride) throws Exception {
        for (Map.Entry<Long, Long> e : live.entrySet()) {
            long key = e.getKey();
            if (key % stride != 0) {
                continue;
            }
            LookupResult found = client.request(r -> new Lookup(r, VOLUME, key, (int) key * 3), LookupResult.class);
            assertTrue(found.found(), "needle " + key);
            assertEquals(e.getValue(), found.offset(), "offset of needle " + key);
        }
        for (long key : deleted.keySet()) {
            assertFalse(client.request(r -> new Lookup(r, VOLUME, key, (int) key * 3), LookupResult.class).found(),
                    "deleted needle " + key);
        }
    }

    @Test
    void changesWhileFollowingAreMergedIntoANewFileThatARestartMaps() throws Exception {
        Path dir = volumeDir();
        Path file = dir.resolve(VOLUME + ".rdx");
        Path idx = dir.resolve(VOLUME + ".idx");
        try (AgentHarness h = new AgentHarness(dir, AgentTestClient.ucxSettings(), AgentSetup.DEFAULTS)) {
            AgentTestClient client = sidecar(h);
            SortedNeedleIndex.Stamp first = stampOf(file);
            // More changes than the overlay holds before a merge (65,536 for a small volume).
            try (VolumeWriter writer = VolumeWriter.append(dir.resolve(VOLUME + ".dat"), idx, IndexFormat.OFFSET4)) {
                for (long key = 10_000; key < 80_000; key++) {
                    live.put(key, writer.append(needle(key, 1)));
                }
                for (long key = 10_003; key < 80_000; key += 1000) {
                    delete(writer, key);
                }
            }
            long written = Files.size(idx);
            Await.until("the agent applied the whole .idx", () -> AgentTestClient.volume(client, VOLUME).idxPosition(),
                    p -> p == written);
            Await.until("a merge wrote a new file", () -> stampOf(file).idxCovered(), c -> c > first.idxCovered());
            assertServes(client, 97);
        }
        SortedNeedleIndex.Stamp merged = stampOf(file);
        Object identity = ServedVolume.fileKey(file);
        assertServes(dir, AgentSetup.DEFAULTS);
        assertEquals(identity, ServedVolume.fileKey(file), "the merged file was mapped, not rebuilt");
        assertEquals(merged, stampOf(file));
    }

    private static SortedNeedleIndex.Stamp stampOf(Path file) throws IOException {
        try (SortedNeedleIndex index = SortedNeedleIndex.open(file)) {
            return index.stamp();
        }
    }

    @Test
    void aRestartMapsTheIndexFileAndReplaysOnlyTheEntriesWrittenSince() throws Exception {
        Path dir = volumeDir();
        assertServes(dir, AgentSetup.DEFAULTS);
        Path file = dir.resolve(VOLUME + ".rdx");
        SortedNeedleIndex.Stamp first = stampOf(file);
        Object identity = ServedVolume.fileKey(file);
        assertTrue(first.idxCovered() > 0 && first.idxCovered() < Files.size(dir.resolve(VOLUME + ".idx")),
                "all but the last entries, which are checked against the .dat, are in the file: " + first);

        try (VolumeWriter writer = VolumeWriter.append(dir.resolve(VOLUME + ".dat"), dir.resolve(VOLUME + ".idx"),
                IndexFormat.OFFSET4)) {
            for (long key = 1000; key < 1005; key++) {
                live.put(key, writer.append(needle(key, 1)));
            }
            delete(writer, 2);
            live.put(3L, writer.append(needle(3, 2))); // overwritten
        }
        assertServes(dir, AgentSetup.DEFAULTS);
        assertEquals(identity, ServedVolume.fileKey(file), "the file was mapped, not rebuilt");
        assertEquals(first, stampOf(file));
    }

    @Test
    void aCorruptIndexFileIsRebuiltFromTheIdx() throws Exception {
        Path dir = volumeDir();
        assertServes(dir, AgentSetup.DEFAULTS);
        Path file = dir.resolve(VOLUME + ".rdx");
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length / 2] ^= 0x40;
        Files.write(file, bytes);
        Object corrupt = ServedVolume.fileKey(file);

        assertServes(dir, AgentSetup.DEFAULTS);
        assertNotEquals(corrupt, ServedVolume.fileKey(file), "rebuilt into a new file");
        assertTrue(stampOf(file).idxCovered() > 0, "the rebuilt file is intact");
    }

    @Test
    void anIndexFileOfAnotherRevisionOfTheVolumeIsRebuilt() throws Exception {
        Path dir = volumeDir();
        assertServes(dir, AgentSetup.DEFAULTS);
        // Compacted while the agent was down: the same names, the next revision, other offsets.
        Files.delete(dir.resolve(VOLUME + ".dat"));
        Files.delete(dir.resolve(VOLUME + ".idx"));
        live.clear();
        deleted.clear();
        try (VolumeWriter writer = VolumeWriter.create(dir.resolve(VOLUME + ".dat"), dir.resolve(VOLUME + ".idx"),
                new SuperBlock(3, 0, Ttl.NONE, 1, null), IndexFormat.OFFSET4)) {
            for (long key = 300; key >= 1; key--) {
                if (key % 5 != 0) {
                    live.put(key, writer.append(needle(key, 3)));
                } else {
                    deleted.put(key, true);
                }
            }
        }
        assertServes(dir, AgentSetup.DEFAULTS);
        assertEquals(1, stampOf(dir.resolve(VOLUME + ".rdx")).compactionRevision());
    }

    @Test
    void theIndexDirectoryHoldsTheFilesWhenConfigured() throws Exception {
        Path dir = volumeDir();
        Path indexDir = tmp.resolve("index");
        assertServes(dir, AgentSetup.config("indexCacheDir: '" + indexDir + "'"));
        assertTrue(Files.isRegularFile(indexDir.resolve(VOLUME + ".rdx")));
        assertFalse(Files.exists(dir.resolve(VOLUME + ".rdx")));
        try (var scratch = Files.list(indexDir)) {
            assertEquals(1, scratch.count(), "no scratch file is left behind");
        }
    }
}
