package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.testing.AgentSetup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.protocol.EcInfo;
import org.seaweedfs.rdma.protocol.EcShard;
import org.seaweedfs.rdma.protocol.Lookup;
import org.seaweedfs.rdma.protocol.LookupResult;
import org.seaweedfs.rdma.protocol.SyncEntries;
import org.seaweedfs.rdma.protocol.SyncEntryReader;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.Await;
import org.seaweedfs.rdma.volume.Fixtures;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NeedleLayout;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.VolumeWriter;
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
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.agent.AgentProtocolTest.replay;

/**
 * A volume server with several data directories and a separate index directory ({@code weed volume -dir=a,b,c
 * -dir.idx=idx}): a volume whose {@code .idx} lives in the index directory is served and followed as it grows, and
 * an EC volume whose shards are spread over three data directories, with its {@code .ecx}/{@code .ecj} in the index
 * directory and its {@code .vif} beside some shards, is served whole.
 */
class AgentDirectoriesTest {

    @TempDir
    Path tmp;

    @Test
    void aVolumeWhoseIdxLivesInTheIndexDirectoryIsServedAndFollowedAsItGrows() throws Exception {
        Path data = Fixtures.copyDir("volumes", Files.createDirectories(tmp.resolve("data")));
        Path idxDir = Files.createDirectories(tmp.resolve("idx"));
        Files.move(data.resolve("2.idx"), idxDir.resolve("2.idx"));
        try (AgentHarness h = new AgentHarness(data, AgentTestClient.ucxSettings(),
                AgentSetup.config("volumeIdxDir: '" + idxDir + "'"))) {
            AgentTestClient client = AgentTestClient.sidecar(h);
            VolumeInfo before = AgentTestClient.volume(client, 2);
            assertEquals(Files.size(idxDir.resolve("2.idx")), before.idxPosition());
            int needles = replay(AgentTestClient.fullSync(client, 2, before.epoch()).toArray(SyncEntries[]::new))
                    .size();
            assertTrue(needles > 0);

            byte[] body = new byte[5000];
            Arrays.fill(body, (byte) 0x5A);
            long offset;
            try (VolumeWriter writer = VolumeWriter.append(data.resolve("2.dat"), idxDir.resolve("2.idx"),
                    IndexFormat.OFFSET4)) {
                offset = writer.append(NewNeedle.builder(0x7001, 0xBEEF, body).appendAtNs(5).build());
            }
            SyncEntries pushed = client.nextPush(SyncEntries.class, e -> e.volumeId() == 2);
            assertEquals(before.idxPosition(), pushed.fromPosition());
            SyncEntryReader entry = pushed.reader();
            assertTrue(entry.next());
            assertEquals(0x7001, entry.key());
            assertEquals(offset, entry.offset());
            VolumeInfo grown = AgentTestClient.volume(client, 2);
            assertEquals(before.epoch(), grown.epoch(), "followed, not reopened");
            int length = (int) NeedleLayout.recordLength(entry.size(), 3);
            byte[] dat = Files.readAllBytes(data.resolve("2.dat"));
            assertArrayEquals(Arrays.copyOfRange(dat, (int) offset, (int) offset + length),
                    client.get(grown, offset, length));
            assertTrue(client.request(r -> new Lookup(r, 2, 0x7001, 0xBEEF), LookupResult.class).found());

            // The volume server moves the .idx back beside the .dat (SeaweedFS prefers that one): served from there.
            Files.move(idxDir.resolve("2.idx"), data.resolve("2.idx"));
            Await.until("volume 2 reopened on the .idx beside its .dat", () -> AgentTestClient.volume(client, 2),
                    v -> v.epoch() != before.epoch());
            assertTrue(client.request(r -> new Lookup(r, 2, 0x7001, 0xBEEF), LookupResult.class).found());
        }
    }

    @Test
    void anEcVolumeWithShardsInThreeDirectoriesAndItsIndexInTheIndexDirectoryIsServedWhole() throws Exception {
        EcWriter.Result ec = EcTestVolumes.encodeFixture(Files.createDirectories(tmp.resolve("src")), 10, 4);
        List<Path> disks = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            disks.add(Files.createDirectories(tmp.resolve("disk" + i)));
        }
        Path idxDir = Files.createDirectories(tmp.resolve("idx"));
        for (int id = 0; id < 14; id++) {
            Files.move(ec.files().shard(id), disks.get(id % 3).resolve(ec.files().shard(id).getFileName()));
        }
        Files.move(ec.files().ecx(), idxDir.resolve("1.ecx"));
        Files.move(ec.files().ecj(), idxDir.resolve("1.ecj"));
        Files.move(ec.files().vif(), disks.get(1).resolve("1.vif"));
        try (AgentHarness h = new AgentHarness(disks.get(0), AgentTestClient.ucxSettings(),
                AgentSetup.ecVolumes().and("volumeDirs: " + disks.stream().map(d -> "'" + d + "'").toList()
                        + "\nvolumeIdxDir: '" + idxDir + "'"))) {
            AgentTestClient client = AgentTestClient.sidecar(h);
            VolumeInfo volume = AgentTestClient.volume(client, 1);
            EcInfo info = volume.ec();
            assertEquals(14, info.shards().size(), "every shard of the three directories");
            assertEquals(Files.size(EcTestVolumes.fixtureDat()), info.datFileSize(), "from the .vif on disk1");
            List<EcIndex.Entry> entries = liveEntries(idxDir.resolve("1.ecx"));
            assertReadable(client, info, entries);

            // A shard moves to another disk: served from there, same epoch.
            Files.move(disks.get(0).resolve("1.ec03"), disks.get(2).resolve("1.ec03"));
            EcInfo moved = Await.until("shard 3 served from disk2 (mapped anew)",
                    () -> AgentTestClient.volume(client, 1).ec(), e -> e.shard(3) != null
                            && e.shards().size() == 14 && !e.shard(3).segments().equals(info.shard(3).segments()));
            assertEquals(volume.epoch(), AgentTestClient.volume(client, 1).epoch());
            assertReadable(client, moved, entries.subList(0, 20));

            // A deletion journaled in the index directory's .ecj reaches the sidecar mirroring the volume.
            VolumeInfo now = AgentTestClient.volume(client, 1);
            assertEquals(entries.size(), replay(AgentTestClient.fullSync(client, 1, now.epoch())
                    .toArray(SyncEntries[]::new)).size());
            long victim = entries.get(5).key();
            Files.write(idxDir.resolve("1.ecj"), ByteBuffer.allocate(8).putLong(victim).array());
            SyncEntries push = client.nextPush(SyncEntries.class, e -> e.volumeId() == 1);
            SyncEntryReader tombstone = push.reader();
            assertTrue(tombstone.next());
            assertEquals(victim, tombstone.key());
            assertFalse(client.request(r -> new Lookup(r, 1, victim, 0), LookupResult.class).found());
        }
    }

    /** Every entry's record, read with one-sided gets of its shard intervals, equals the original .dat's bytes. */
    static void assertReadable(AgentTestClient client, EcInfo info, List<EcIndex.Entry> entries) throws Exception {
        EcLayout layout = new EcLayout(info.dataShards(), info.parityShards(), info.largeBlockSize(),
                info.smallBlockSize());
        long shardDatSize = layout.shardDatSize(info.datFileSize(), info.shardSize());
        try (FileChannel dat = FileChannel.open(EcTestVolumes.fixtureDat(), StandardOpenOption.READ)) {
            for (EcIndex.Entry entry : entries) {
                int length = (int) NeedleLayout.recordLength(entry.size(), 3);
                ByteArrayOutputStream got = new ByteArrayOutputStream();
                for (EcInterval interval : layout.locate(shardDatSize, entry.offset(), length)) {
                    EcShard shard = info.shard(interval.shardId());
                    got.write(client.get(new VolumeInfo(1, "", 3, 1, info.shardSize(), 0, shard.segments()),
                            interval.shardOffset(), (int) interval.length()));
                }
                ByteBuffer want = ByteBuffer.allocate(length);
                dat.read(want, entry.offset());
                assertArrayEquals(want.array(), got.toByteArray(), "needle " + entry.key());
            }
        }
    }

    static List<EcIndex.Entry> liveEntries(Path ecx) throws Exception {
        List<EcIndex.Entry> entries = new ArrayList<>();
        try (EcIndex index = EcIndex.open(ecx, IndexFormat.OFFSET4)) {
            index.forEachLive((key, offset, size) -> {
                if (size > 0) {
                    entries.add(new EcIndex.Entry(key, offset, size));
                }
            });
        }
        return entries;
    }
}
