package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.testing.AgentSetup;
import static org.seaweedfs.rdma.agent.AgentTestClient.sidecar;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import org.seaweedfs.rdma.testing.AgentHarness;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.LogCapture;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.protocol.ControlMessage;
import org.seaweedfs.rdma.protocol.ErrorCode;
import org.seaweedfs.rdma.protocol.ErrorReply;
import org.seaweedfs.rdma.protocol.Lookup;
import org.seaweedfs.rdma.protocol.LookupResult;
import org.seaweedfs.rdma.protocol.Ping;
import org.seaweedfs.rdma.protocol.Pong;
import org.seaweedfs.rdma.protocol.ReadThrough;
import org.seaweedfs.rdma.protocol.ReadThroughData;
import org.seaweedfs.rdma.protocol.SyncEntries;
import org.seaweedfs.rdma.protocol.SyncEntryReader;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.VolumeWriter;

/** 17-byte indexes served end to end, a flooding sidecar bounded per channel, a volume without .idx explained. */
class AgentHardeningTest {

    @TempDir
    Path dir;
    private AgentHarness harness;

    @AfterEach
    void stop() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void offset5IndexesAreLookedUpSyncedAndReadEndToEnd() throws Exception {
        Map<Long, Long> offsets = new HashMap<>();
        try (VolumeWriter writer = VolumeWriter.create(dir, "", 7, 3, IndexFormat.OFFSET5)) {
            for (long key = 1; key <= 4; key++) {
                offsets.put(key,
                        writer.append(NewNeedle.builder(key, 0x70 + (int) key, bytes(500 * (int) key, key)).build()));
            }
            writer.delete(2, 0x72, System.nanoTime());
        }
        long idxSize = Files.size(dir.resolve("7.idx"));
        assertEquals(5 * 17, idxSize, "five 17-byte entries");
        byte[] dat = Files.readAllBytes(dir.resolve("7.dat"));

        harness = new AgentHarness(dir, AgentTestClient.ucxSettings(), AgentSetup.config("offset5: true"));
        AgentTestClient client = sidecar(harness);
        VolumeInfo volume = AgentTestClient.volume(client, 7);
        assertEquals(idxSize, volume.idxPosition());

        List<SyncEntries> frames = AgentTestClient.fullSync(client, 7, volume.epoch());
        assertEquals(idxSize, frames.get(frames.size() - 1).toPosition(), "positions count 17-byte entries");
        Map<Long, Long> synced = new HashMap<>();
        for (SyncEntries frame : frames) {
            SyncEntryReader reader = frame.reader();
            while (reader.next()) {
                if (reader.isLive()) {
                    synced.put(reader.key(), reader.offset());
                } else {
                    synced.remove(reader.key());
                }
            }
        }
        assertEquals(Map.of(1L, offsets.get(1L), 3L, offsets.get(3L), 4L, offsets.get(4L)), synced);

        for (long key : new long[] {1, 3, 4}) {
            int cookie = 0x70 + (int) key;
            LookupResult found = client.request(id -> new Lookup(id, 7, key, cookie), LookupResult.class);
            assertTrue(found.found(), "needle " + key);
            assertEquals(offsets.get(key), found.offset());
            byte[] record = client.get(volume, found.offset(), (int) found.recordSize());
            byte[] expected = new byte[(int) found.recordSize()];
            System.arraycopy(dat, (int) found.offset(), expected, 0, expected.length);
            assertArrayEquals(expected, record, "one-sided get of needle " + key);
            assertEquals(key, ByteBuffer.wrap(record).getLong(4), "the record's key");
            ReadThroughData copied =
                    client.request(id -> new ReadThrough(id, 7, key, cookie, 0, (int) found.recordSize()),
                    ReadThroughData.class);
            assertArrayEquals(expected, copied.bytes(), "read-through of needle " + key);
        }
        assertFalse(client.request(id -> new Lookup(id, 7, 2, 0x72), LookupResult.class).found(), "deleted");
    }

    @Test
    void aFloodOfLargeRequestsIsAnsweredOverloadedAndTheChannelKeepsServing() throws Exception {
        try (VolumeWriter writer = VolumeWriter.create(dir, "", 8, 3, IndexFormat.OFFSET4)) {
            writer.append(NewNeedle.builder(1, 0x11, bytes(1 << 20, 1)).build());
        }
        harness = new AgentHarness(dir, AgentTestClient.ucxSettings(), AgentSetup.DEFAULTS);
        AgentTestClient client = sidecar(harness);
        LookupResult at = client.request(id -> new Lookup(id, 8, 1, 0x11), LookupResult.class);
        int flood = 8 * ControlServer.MAX_REPLIES_IN_FLIGHT;
        // Each reply is checked as it comes and only its kind kept, so the flood's bytes do not pile up here.
        List<CompletableFuture<Boolean>> served = new ArrayList<>();
        for (int i = 0; i < flood; i++) {
            served.add(client.requestAsync(id -> new ReadThrough(id, 8, 1, 0x11, 0, (int) at.recordSize()))
                    .thenApply(reply -> servedWhole(reply, at.recordSize())));
        }
        int overloaded = 0;
        for (CompletableFuture<Boolean> reply : served) {
            overloaded += reply.get(AgentTestClient.TIMEOUT_S, TimeUnit.SECONDS) ? 0 : 1;
        }
        assertTrue(overloaded > 0, flood + " queued 1 MiB replies exceed the bound of 32");
        assertTrue(flood - overloaded >= ControlServer.MAX_REPLIES_IN_FLIGHT, (flood - overloaded) + " served");
        assertEquals(overloaded, harness.agent.metrics().overloaded().sum());
        // Once the replies drained, the channel serves normally again.
        assertInstanceOf(ReadThroughData.class, client.request(id -> new ReadThrough(id, 8, 1, 0x11, 0, 64)));
        assertEquals(7, client.request(id -> new Ping(id, 7), Pong.class).sentNanos());
    }

    /** True for the whole record, false for OVERLOADED; anything else fails the test. */
    private static boolean servedWhole(ControlMessage reply, long recordSize) {
        if (reply instanceof ErrorReply error) {
            assertEquals(ErrorCode.OVERLOADED, error.code());
            assertTrue(error.retriable());
            assertTrue(error.message().contains("large replies are still being sent"), error.message());
            return false;
        }
        assertEquals(recordSize, assertInstanceOf(ReadThroughData.class, reply).bytes().length);
        return true;
    }

    @Test
    void aVolumeWithoutIdxIsSkippedWithALogSayingWhatToDo() throws Exception {
        try (VolumeWriter writer = VolumeWriter.create(dir, "", 5, 3, IndexFormat.OFFSET4)) {
            writer.append(NewNeedle.builder(1, 0x11, bytes(100, 1)).build());
        }
        Files.delete(dir.resolve("5.idx"));
        List<String> warnings;
        try (LogCapture capture = LogCapture.of(VolumeFollower.class.getName(), "INFO")) {
            harness = new AgentHarness(dir, AgentTestClient.ucxSettings(), AgentSetup.DEFAULTS);
            AgentTestClient client = sidecar(harness);
            assertEquals(List.of(), client.request(org.seaweedfs.rdma.protocol.VolumeListRequest::new,
                    org.seaweedfs.rdma.protocol.VolumeList.class).volumes());
            warnings = capture.messages();
        }
        String warning = warnings.stream().filter(m -> m.contains("5.dat") || m.contains("volume 5")).findFirst()
                .orElseThrow(() -> new AssertionError("no warning about volume 5 in " + warnings));
        assertTrue(warning.contains(".idx"), warning);
        assertTrue(warning.contains("weed fix"), "says how to rebuild the index: " + warning);
        assertTrue(warning.contains("agent.offset5") || warning.contains("served once"), warning);
    }
}
