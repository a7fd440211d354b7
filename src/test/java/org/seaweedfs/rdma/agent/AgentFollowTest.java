package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.testing.AgentSetup;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.SparseVolumes;
import org.seaweedfs.rdma.protocol.ControlMessage;
import org.seaweedfs.rdma.protocol.ErrorCode;
import org.seaweedfs.rdma.protocol.ErrorReply;
import org.seaweedfs.rdma.protocol.Lookup;
import org.seaweedfs.rdma.protocol.ReadThrough;
import org.seaweedfs.rdma.protocol.Segment;
import org.seaweedfs.rdma.protocol.LookupResult;
import org.seaweedfs.rdma.protocol.SyncEntries;
import org.seaweedfs.rdma.protocol.SyncEntryReader;
import org.seaweedfs.rdma.protocol.SyncRequest;
import org.seaweedfs.rdma.protocol.VolumeChanged;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.protocol.VolumeList;
import org.seaweedfs.rdma.protocol.VolumeListRequest;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NeedleEncoder;
import org.seaweedfs.rdma.volume.NeedleLayout;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.SortedNeedleIndex;
import org.seaweedfs.rdma.volume.SuperBlock;
import org.seaweedfs.rdma.volume.Ttl;
import org.seaweedfs.rdma.volume.VolumeWriter;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.seaweedfs.rdma.agent.AgentTestClient.sidecar;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.agent.AgentTestClient.fullSync;
import static org.seaweedfs.rdma.agent.AgentTestClient.volume;
import static org.seaweedfs.rdma.agent.AgentProtocolTest.assertError;
import static org.seaweedfs.rdma.agent.AgentProtocolTest.replay;
import static org.seaweedfs.rdma.testing.Await.until;

/**
 * The agent following a volume server that writes while it serves: appends and deletions pushed to mirrors, growth
 * mapped (into new segments when small), new and removed volumes, compaction under a new epoch. Deadlines are the
 * client's generous push timeout; the requirement is "within 1 s" at a 100 ms poll.
 */
class AgentFollowTest extends AgentTestBase {

    @Test
    void appendedNeedlesArePushedAndReadableAndDeletionsPushedAsTombstones() throws Exception {
        AgentHarness h = start(AgentSetup.DEFAULTS);
        AgentTestClient client = sidecar(h);
        long epoch = volume(client, 2).epoch();
        SyncEntries synced = fullSync(client, 2, epoch).get(0);
        byte[] data = randomBytes(3000, 1);
        long offset;
        try (VolumeWriter writer =
                VolumeWriter.append(h.dir.resolve("2.dat"), h.dir.resolve("2.idx"), IndexFormat.OFFSET4)) {
            offset = writer.append(NewNeedle.builder(0x1000, 0xCAFE, data).name("new.bin").appendAtNs(1).build());
        }

        SyncEntries pushed = client.nextPush(SyncEntries.class, e -> e.volumeId() == 2);
        assertEquals(0, pushed.requestId());
        assertEquals(synced.toPosition(), pushed.fromPosition(), "contiguous with the sync");
        assertEquals(epoch, pushed.epoch());
        assertEquals(1, pushed.entryCount());
        SyncEntryReader entry = pushed.reader();
        assertTrue(entry.next());
        assertEquals(0x1000, entry.key());
        assertEquals(offset, entry.offset());
        assertTrue(entry.isLive());

        VolumeInfo grown = volume(client, 2);
        assertEquals(Files.size(h.dir.resolve("2.dat")), grown.datSize());
        assertEquals(pushed.toPosition(), grown.idxPosition());
        int recordSize = (int) NeedleLayout.recordLength(entry.size(), 3);
        byte[] dat = Files.readAllBytes(h.dir.resolve("2.dat"));
        assertArrayEquals(Arrays.copyOfRange(dat, (int) offset, (int) offset + recordSize),
                client.get(grown, offset, recordSize));
        LookupResult found = client.request(r -> new Lookup(r, 2, 0x1000, 0xCAFE), LookupResult.class);
        assertTrue(found.found());
        assertEquals(offset, found.offset());

        try (VolumeWriter writer =
                VolumeWriter.append(h.dir.resolve("2.dat"), h.dir.resolve("2.idx"), IndexFormat.OFFSET4)) {
            writer.delete(0x1000, 0xCAFE, 2);
        }
        SyncEntries tombstone = client.nextPush(SyncEntries.class, e -> e.volumeId() == 2);
        assertEquals(pushed.toPosition(), tombstone.fromPosition());
        SyncEntryReader deleted = tombstone.reader();
        assertTrue(deleted.next());
        assertEquals(0x1000, deleted.key());
        assertFalse(deleted.isLive());
        assertEquals(IndexFormat.TOMBSTONE_SIZE, deleted.size(), "the .idx size as stored");
        assertFalse(client.request(r -> new Lookup(r, 2, 0x1000, 0xCAFE), LookupResult.class).found());
        assertTrue(h.agent.metrics().pushes().sum() >= 2);
    }

    @Test
    void growthPastASegmentAddsSegmentsAndKeepsTheFullOnes() throws Exception {
        long segment = segmentBytes();
        Path dir = Files.createDirectories(tmp.resolve("volumes"));
        Path dat = dir.resolve("5.dat");
        Path idx = dir.resolve("5.idx");
        try (VolumeWriter writer = VolumeWriter.create(dir, "", 5, 3, IndexFormat.OFFSET4)) {
            writer.append(NewNeedle.builder(1, 7, randomBytes(1000, 1)).build());
        }
        SparseVolumes.appendAt(dat, idx, IndexFormat.OFFSET4, segment + 1000,
                NewNeedle.builder(2, 7, randomBytes(1000, 2)).build());
        AgentHarness h = start(AgentSetup.DEFAULTS);
        AgentTestClient client = sidecar(h);
        VolumeInfo before = volume(client, 5);
        assertEquals(2, before.segments().size(), "a full segment and a short tail");
        byte[] data = randomBytes(200_000, 3);
        long offset = SparseVolumes.appendAt(dat, idx, IndexFormat.OFFSET4, 2 * segment - 5000,
                NewNeedle.builder(0x2000, 7, data).appendAtNs(3).build());
        VolumeChanged changed = client.nextPush(VolumeChanged.class, c -> c.volumeId() == 5);
        assertEquals(VolumeChanged.Reason.GROWN, changed.reason());
        assertEquals(before.epoch(), changed.epoch());

        VolumeInfo after = awaitVolume(client, 5, v -> v.datSize() == sizeOf(dat));
        AgentProtocolTest.assertCutInto(segment, after);
        assertEquals(before.segments().get(0), after.segments().get(0), "the full segment stays registered as it was");
        assertNotEquals(before.segments().get(1).length(), after.segments().get(1).length(),
                "the short tail was mapped again");
        LookupResult found = awaitFound(client, 5, 0x2000, 7);
        assertEquals(offset, found.offset());
        assertArrayEquals(SparseVolumes.read(dat, offset, (int) found.recordSize()),
                client.get(after, offset, (int) found.recordSize()), "a record across the new segment boundary");
        assertTrue(h.agent.metrics().remaps().sum() >= 1);

        // A reader still holding the old list (within the grace) reads the old tail correctly.
        Segment oldTail = before.segments().get(1);
        int length = (int) oldTail.length();
        assertArrayEquals(SparseVolumes.read(dat, oldTail.fileOffset(), length),
                client.get(before, oldTail.fileOffset(), length));
    }

    @Test
    void anIndexEntryIsHeldBackUntilItsRecordIsOnDisk() throws Exception {
        AgentHarness h = start(AgentSetup.DEFAULTS);
        AgentTestClient client = sidecar(h);
        SyncEntries synced = fullSync(client, 2, 0).get(0);
        Path dat = h.dir.resolve("2.dat");
        long offset = Files.size(dat);
        NewNeedle needle = NewNeedle.builder(0x3000, 9, randomBytes(500, 3)).appendAtNs(4).build();
        ByteBuffer entry = ByteBuffer.allocate(16);
        IndexFormat.OFFSET4.put(entry, 0x3000, offset, (int) NeedleEncoder.size(needle, 3));
        try (FileChannel idx = FileChannel.open(h.dir.resolve("2.idx"), StandardOpenOption.APPEND)) {
            idx.write(entry.flip());
        }
        long polls = h.agent.metrics().polls().sum();
        until("two passes over the grown .idx", () -> h.agent.metrics().polls().sum() >= polls + 2);
        // Not served, nor answered not found: the .idx lists the needle, its volume server has it.
        ErrorReply waiting = AgentProtocolTest.assertError(ErrorCode.UNAVAILABLE,
                client.request(r -> new Lookup(r, 2, 0x3000, 9)));
        assertTrue(waiting.retriable(), waiting.toString());
        AgentProtocolTest.assertError(ErrorCode.UNAVAILABLE,
                client.request(r -> new ReadThrough(r, 2, 0x3000, 9, 0, 8)));
        try (FileChannel ch = FileChannel.open(dat, StandardOpenOption.WRITE)) {
            ch.write(NeedleEncoder.encode(needle, 3), offset);
        }
        SyncEntries pushed = client.nextPush(SyncEntries.class, e -> e.volumeId() == 2);
        assertEquals(synced.toPosition(), pushed.fromPosition());
        assertEquals(1, pushed.entryCount());
        assertEquals(offset, awaitFound(client, 2, 0x3000, 9).offset());
    }

    @Test
    void aGarbageOrTornIndexTailIsSkippedAndTheVolumeKeepsServing() throws Exception {
        AgentHarness h = start(AgentSetup.DEFAULTS);
        AgentTestClient client = sidecar(h);
        long epoch = volume(client, 2).epoch();
        SyncEntryReader first = fullSync(client, 2, epoch).get(0).reader();
        assertTrue(first.next());
        byte[] dat = Files.readAllBytes(h.dir.resolve("2.dat"));
        int cookie = ByteBuffer.wrap(dat, (int) first.offset(), 4).getInt();
        // A complete entry whose key is not the record's at its offset (what a crash mid-append can leave).
        ByteBuffer garbage = ByteBuffer.allocate(16);
        IndexFormat.OFFSET4.put(garbage, 0x9999, first.offset(), first.size());
        try (FileChannel idx = FileChannel.open(h.dir.resolve("2.idx"), StandardOpenOption.APPEND)) {
            idx.write(garbage.flip());
        }
        long offset;
        try (VolumeWriter writer =
                VolumeWriter.append(h.dir.resolve("2.dat"), h.dir.resolve("2.idx"), IndexFormat.OFFSET4)) {
            offset = writer.append(NewNeedle.builder(0x4000, 11, randomBytes(700, 4)).appendAtNs(5).build());
        }
        try (FileChannel idx = FileChannel.open(h.dir.resolve("2.idx"), StandardOpenOption.APPEND)) {
            idx.write(ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6, 7})); // a torn last entry
        }
        assertEquals(offset, awaitFound(client, 2, 0x4000, 11).offset(), "entries after the garbage one are served");
        assertFalse(client.request(r -> new Lookup(r, 2, 0x9999, cookie), LookupResult.class).found(),
                "an entry that does not match its record is not served");
        assertTrue(client.request(r -> new Lookup(r, 2, first.key(), cookie), LookupResult.class).found());
        VolumeInfo after = volume(client, 2);
        assertEquals(epoch, after.epoch(), "the volume was not reopened");
        assertEquals(Files.size(h.dir.resolve("2.idx")) - 7, after.idxPosition(), "the torn bytes wait");
    }

    @Test
    void aNewVolumeIsAnnouncedAndServed() throws Exception {
        AgentHarness h = start(AgentSetup.DEFAULTS);
        AgentTestClient client = sidecar(h);
        long offset;
        try (VolumeWriter writer = VolumeWriter.create(h.dir, "pics", 7, 3, IndexFormat.OFFSET4)) {
            offset = writer.append(NewNeedle.builder(1, 2, randomBytes(1234, 4)).appendAtNs(5).build());
        }
        VolumeChanged changed = client.nextPush(VolumeChanged.class, c -> c.volumeId() == 7);
        assertEquals(VolumeChanged.Reason.NEW, changed.reason());
        VolumeInfo seven = awaitVolume(client, 7, v -> v.idxPosition() == 16);
        assertEquals("pics", seven.collection());
        assertEquals(changed.epoch(), seven.epoch());
        assertEquals(1, replay(fullSync(client, 7, 0).toArray(SyncEntries[]::new)).size());
        byte[] dat = Files.readAllBytes(h.dir.resolve("pics_7.dat"));
        LookupResult found = awaitFound(client, 7, 1, 2);
        assertArrayEquals(Arrays.copyOfRange(dat, (int) offset, (int) (offset + found.recordSize())),
                client.get(seven, offset, (int) found.recordSize()));
    }

    @Test
    void compactionIsServedUnderANewEpoch() throws Exception {
        AgentHarness h = start(AgentSetup.DEFAULTS);
        AgentTestClient client = sidecar(h);
        VolumeInfo old = volume(client, 2);
        fullSync(client, 2, old.epoch());
        Path staging = Files.createDirectories(tmp.resolve("staging"));
        SuperBlock compacted = new SuperBlock(3, 0, Ttl.NONE, 1, null);
        try (VolumeWriter writer =
                VolumeWriter.create(staging.resolve("2.cpd"), staging.resolve("2.cpx"), compacted,
                IndexFormat.OFFSET4)) {
            writer.append(NewNeedle.builder(0x11, 1, randomBytes(100, 5)).appendAtNs(6).build());
            writer.append(NewNeedle.builder(0x12, 2, randomBytes(200, 6)).appendAtNs(7).build());
        }
        Files.move(staging.resolve("2.cpd"), h.dir.resolve("2.dat"), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
        Files.move(staging.resolve("2.cpx"), h.dir.resolve("2.idx"), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);

        VolumeChanged changed = client.nextPush(VolumeChanged.class, c -> c.volumeId() == 2);
        assertEquals(VolumeChanged.Reason.COMPACTED, changed.reason());
        assertTrue(Long.compareUnsigned(changed.epoch(), old.epoch()) > 0, "epochs only grow");
        VolumeInfo now = volume(client, 2);
        assertEquals(changed.epoch(), now.epoch());
        assertEquals(Files.size(h.dir.resolve("2.dat")), now.datSize());
        assertNotEquals(old.segments(), now.segments());
        assertError(ErrorCode.STALE_EPOCH, client.request(r -> new SyncRequest(r, 2, old.epoch(), 0)));
        assertError(ErrorCode.STALE_EPOCH, client.request(r -> new SyncRequest(r, 2, old.epoch(), old.idxPosition())));
        assertEquals(2, replay(fullSync(client, 2, now.epoch()).toArray(SyncEntries[]::new)).size());
        LookupResult found = client.request(r -> new Lookup(r, 2, 0x12, 2), LookupResult.class);
        assertTrue(found.found());
        assertEquals(now.epoch(), found.epoch());
        byte[] dat = Files.readAllBytes(h.dir.resolve("2.dat"));
        assertArrayEquals(Arrays.copyOfRange(dat, (int) found.offset(), (int) (found.offset() + found.recordSize())),
                client.get(now, found.offset(), (int) found.recordSize()));
        assertFalse(client.request(r -> new Lookup(r, 2, 0x14, 0), LookupResult.class).found());
        assertEquals(1, h.agent.metrics().reopens().sum());
        assertEquals(2, h.agent.metrics().needlesPerVolume().get(2L));
        try (SortedNeedleIndex index = SortedNeedleIndex.open(h.dir.resolve("2.rdx"))) {
            assertEquals(1, index.stamp().compactionRevision(), "the index file of the old revision was rebuilt");
        }
    }

    @Test
    void aRemovedVolumeIsAnnouncedAndNoLongerServed() throws Exception {
        AgentHarness h = start(AgentSetup.DEFAULTS);
        AgentTestClient client = sidecar(h);
        long epoch = volume(client, 3).epoch();
        Files.delete(h.dir.resolve("3.dat"));
        Files.delete(h.dir.resolve("3.idx"));
        VolumeChanged changed = client.nextPush(VolumeChanged.class, c -> c.volumeId() == 3);
        assertEquals(VolumeChanged.Reason.REMOVED, changed.reason());
        assertEquals(epoch, changed.epoch());
        VolumeList list = client.request(VolumeListRequest::new, VolumeList.class);
        assertEquals(List.of(1L, 2L), list.volumes().stream().map(VolumeInfo::volumeId).toList());
        assertError(ErrorCode.UNKNOWN_VOLUME, client.request(r -> new Lookup(r, 3, 1, 1)));
        assertEquals(2, h.agent.metrics().volumes());
    }

    /** The volume as listed once {@code ready} holds (the agent changes it on a later poll). */
    static VolumeInfo awaitVolume(AgentTestClient client, long volumeId,
                                          java.util.function.Predicate<VolumeInfo> ready) {
        return until("volume " + volumeId + " as expected", () -> volume(client, volumeId), ready);
    }

    /** Until the needle is found; meanwhile the agent may answer UNAVAILABLE (its .idx grew, not yet applied). */
    static LookupResult awaitFound(AgentTestClient client, long volumeId, long key, int cookie) {
        ControlMessage found = until("needle " + Long.toHexString(key) + " found",
                () -> client.request(r -> new Lookup(r, volumeId, key, cookie)),
                answer -> answer instanceof LookupResult r ? r.found()
                        : AgentProtocolTest.assertError(ErrorCode.UNAVAILABLE, answer) == null);
        return (LookupResult) found;
    }

    static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static byte[] randomBytes(int n, long seed) {
        byte[] bytes = new byte[n];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }
}
