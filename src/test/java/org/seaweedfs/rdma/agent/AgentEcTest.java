package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.testing.AgentSetup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.protocol.ControlCodec;
import org.seaweedfs.rdma.protocol.EcInfo;
import org.seaweedfs.rdma.protocol.EcShard;
import org.seaweedfs.rdma.protocol.ErrorCode;
import org.seaweedfs.rdma.protocol.ErrorReply;
import org.seaweedfs.rdma.protocol.Hello;
import org.seaweedfs.rdma.protocol.Lookup;
import org.seaweedfs.rdma.protocol.LookupBatch;
import org.seaweedfs.rdma.protocol.LookupBatchResult;
import org.seaweedfs.rdma.protocol.LookupResult;
import org.seaweedfs.rdma.protocol.ReadThrough;
import org.seaweedfs.rdma.protocol.SyncEntries;
import org.seaweedfs.rdma.protocol.VolumeChanged;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.Await;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NeedleLayout;
import org.seaweedfs.rdma.volume.ec.EcIndex;
import org.seaweedfs.rdma.volume.ec.EcInterval;
import org.seaweedfs.rdma.volume.ec.EcLayout;
import org.seaweedfs.rdma.volume.ec.EcTestVolumes;
import org.seaweedfs.rdma.volume.ec.EcWriter;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.agent.AgentProtocolTest.assertError;
import static org.seaweedfs.rdma.agent.AgentProtocolTest.replay;

/**
 * The agent serving an EC volume (SeaweedFS's 1.dat/1.idx encoded with its test block sizes, and a custom shard
 * count): listed with its shards, every needle readable with one-sided gets of its intervals, the .ecx synced as
 * the needle map, .ecj deletions followed, shards leaving and arriving, and an older sidecar refused readably.
 */
class AgentEcTest {

    @TempDir
    Path dir;

    private AgentHarness start() {
        return new AgentHarness(dir, AgentTestClient.ucxSettings(), AgentSetup.ecVolumes());
    }

    @Test
    void everyNeedleReadsFromTheShardsAndDeletionsAndShardMovesAreFollowed() throws Exception {
        EcWriter.Result ec = EcTestVolumes.encodeFixture(dir, 10, 4);
        try (AgentHarness h = start()) {
            AgentTestClient client = AgentTestClient.sidecar(h);
            VolumeInfo volume = AgentTestClient.volume(client, 1);
            EcInfo info = volume.ec();
            assertNotNull(info);
            assertTrue(volume.segments().isEmpty());
            assertEquals(Files.size(EcTestVolumes.fixtureDat()), info.datFileSize());
            assertEquals(ec.shardSize(), info.shardSize());
            assertEquals(14, info.shards().size());
            assertEquals(ec.shardSize(), info.shard(13).segments().get(info.shard(13).segments().size() - 1).end());

            // Every live needle: the agent's lookup agrees with the .ecx, and the record read with one-sided gets
            // of its intervals equals the .dat's bytes.
            EcLayout layout = new EcLayout(10, 4, info.largeBlockSize(), info.smallBlockSize());
            long shardDatSize = layout.shardDatSize(info.datFileSize(), info.shardSize());
            List<EcIndex.Entry> entries = liveEntries(ec);
            assertTrue(entries.size() > 100);
            try (FileChannel dat = FileChannel.open(EcTestVolumes.fixtureDat(), StandardOpenOption.READ)) {
                for (EcIndex.Entry entry : entries) {
                    LookupResult found = client.request(id -> new Lookup(id, 1, entry.key(), 0), LookupResult.class);
                    assertTrue(found.found(), "needle " + entry.key());
                    assertEquals(entry.offset(), found.offset());
                    int length = (int) NeedleLayout.recordLength(entry.size(), 3);
                    assertEquals(length, found.recordSize());
                    ByteArrayOutputStream got = new ByteArrayOutputStream();
                    for (EcInterval interval : layout.locate(shardDatSize, entry.offset(), length)) {
                        got.write(client.get(shardAsVolume(info.shard(interval.shardId()), info.shardSize()),
                                interval.shardOffset(), (int) interval.length()));
                    }
                    ByteBuffer want = ByteBuffer.allocate(length);
                    dat.read(want, entry.offset());
                    assertArrayEquals(want.array(), got.toByteArray(), "needle " + entry.key());
                }
            }

            // The .ecx syncs as the needle map; read-through is refused for EC volumes.
            Map<Long,
                    long[]> map =
                    replay(AgentTestClient.fullSync(client, 1, volume.epoch()).toArray(SyncEntries[]::new));
            assertEquals(entries.size(), map.size());
            assertError(ErrorCode.BAD_REQUEST,
                    client.request(id -> new ReadThrough(id, 1, entries.get(0).key(), 0, 0, 16)));

            // A deletion appended to the .ecj: pushed as a tombstone to the mirroring sidecar, and lookups miss it.
            long victim = entries.get(7).key();
            Files.write(ec.files().ecj(), ByteBuffer.allocate(8).putLong(victim).array());
            SyncEntries push = client.nextPush(SyncEntries.class, e -> e.volumeId() == 1);
            assertEquals(volume.idxPosition(), push.fromPosition());
            assertEquals(1, push.entryCount());
            org.seaweedfs.rdma.protocol.SyncEntryReader tombstone = push.reader();
            assertTrue(tombstone.next());
            assertEquals(victim, tombstone.key());
            assertFalse(tombstone.isLive());
            assertFalse(client.request(id -> new Lookup(id, 1, victim, 0), LookupResult.class).found());
            // Batched lookups (what sidecars send) answer from the .ecx minus the .ecj too.
            EcIndex.Entry live = entries.get(8);
            LookupBatchResult batch = client.request(id -> new LookupBatch(id, LookupBatch.pack(
                    new long[] {1, 1, 99}, new long[] {live.key(), victim, live.key()}, new int[3], 3)),
                    LookupBatchResult.class);
            assertEquals(LookupBatchResult.FOUND, batch.status(0));
            assertEquals(live.offset(), batch.offset(0));
            assertEquals(live.size(), batch.size(0));
            assertEquals(volume.epoch(), batch.epoch(0));
            assertEquals(LookupBatchResult.NOT_FOUND, batch.status(1));
            assertEquals(LookupBatchResult.UNKNOWN_VOLUME, batch.status(2));

            // A shard leaves (moved to another server) and comes back.
            Path shard3 = ec.files().shard(3);
            Path moved = dir.resolve("moved.ec03");
            Files.move(shard3, moved);
            client.nextPush(VolumeChanged.class, c -> c.volumeId() == 1 && c.reason() == VolumeChanged.Reason.GROWN);
            assertNull(AgentTestClient.volume(client, 1).ec().shard(3));
            Files.move(moved, shard3);
            Await.until("shard 3 served again", () -> AgentTestClient.volume(client, 1).ec().shard(3), s -> s != null);
            assertEquals(volume.epoch(), AgentTestClient.volume(client, 1).epoch());
        }
    }

    @Test
    void customShardCountsFromTheVifAndOnlyTheShardsPresentAreListed() throws Exception {
        EcWriter.Result ec = EcTestVolumes.encodeFixture(dir, 3, 2);
        Files.delete(ec.files().shard(1));
        Files.delete(ec.files().shard(4));
        try (AgentHarness h = start()) {
            AgentTestClient client = AgentTestClient.sidecar(h);
            EcInfo info = AgentTestClient.volume(client, 1).ec();
            assertEquals(3, info.dataShards());
            assertEquals(2, info.parityShards());
            assertEquals(List.of(0, 2, 3), info.shards().stream().map(EcShard::shardId).toList());
        }
    }

    @Test
    void aSidecarOfTheOlderVersionGetsAReadableRefusal() throws Exception {
        try (AgentHarness h = start()) {
            AgentTestClient client = AgentTestClient.connect(h);
            // Hello is frozen: the old sidecar frames it as version 1 and reads the Error framed as version 1.
            ErrorReply refused = assertError(ErrorCode.UNSUPPORTED_VERSION,
                    client.request(id -> new Hello(id, 1, "old-sidecar", null)));
            assertTrue(refused.message().contains("to " + ControlCodec.PROTOCOL_VERSION + " (run"), refused.message());
            assertEquals(ControlCodec.FROZEN_FRAME_VERSION, new ControlCodec().encode(refused)[2]);
        }
    }

    private static VolumeInfo shardAsVolume(EcShard shard, long shardSize) {
        return new VolumeInfo(1, "", 3, 1, shardSize, 0, shard.segments());
    }

    private static List<EcIndex.Entry> liveEntries(EcWriter.Result ec) throws Exception {
        List<EcIndex.Entry> entries = new ArrayList<>();
        try (EcIndex index = EcIndex.open(ec.files().ecx(), IndexFormat.OFFSET4)) {
            index.forEachLive((key, offset, size) -> {
                if (size > 0) {
                    entries.add(new EcIndex.Entry(key, offset, size));
                }
            });
        }
        return entries;
    }
}
