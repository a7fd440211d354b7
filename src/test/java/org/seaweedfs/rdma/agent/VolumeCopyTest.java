package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.testing.AgentSetup;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.protocol.LookupResult;
import org.seaweedfs.rdma.protocol.Segment;
import org.seaweedfs.rdma.protocol.SyncEntries;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NeedleLayout;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.SuperBlock;
import org.seaweedfs.rdma.volume.Ttl;
import org.seaweedfs.rdma.volume.VolumeWriter;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Map;

import static org.seaweedfs.rdma.agent.AgentTestClient.sidecar;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.seaweedfs.rdma.agent.AgentFollowTest.awaitFound;
import static org.seaweedfs.rdma.agent.AgentFollowTest.awaitVolume;
import static org.seaweedfs.rdma.agent.AgentFollowTest.randomBytes;
import static org.seaweedfs.rdma.agent.AgentFollowTest.sizeOf;
import static org.seaweedfs.rdma.agent.AgentTestClient.fullSync;
import static org.seaweedfs.rdma.agent.AgentTestClient.volume;
import static org.seaweedfs.rdma.agent.AgentProtocolTest.replay;
import static org.seaweedfs.rdma.testing.Await.until;

/**
 * What only agent.volumeMemory: ucx does: the UCX memory the copies hold (the gauge), the limit, a growing tail
 * filled in place until its room is used, and copies freed after the retire graces. Reads from copies in general
 * run in {@link AgentProtocolFromCopiesTest} and {@link AgentFollowFromCopiesTest}.
 */
class VolumeCopyTest extends AgentTestBase {

    /** The {@code agent:} line that serves UCX copies. */
    static final String COPIES = "volumeMemory: ucx";
    private static final long DEFAULT_LIMIT = 4L << 30;

    private static AgentSetup copiesWithin(long limit) {
        return AgentSetup.config(COPIES + "\nvolumeMemoryLimit: " + limit);
    }

    @Test
    void everyVolumeIsCopiedAndTheGaugeHoldsExactlyTheirBytes() throws Exception {
        AgentHarness h = start(AgentSetup.config(COPIES));
        assertEquals(datBytes(h, 1, 2, 3), h.agent.metrics().volumeCopyBytes());
    }

    @Test
    void mappedVolumesHoldNoUcxMemory() throws Exception {
        AgentHarness h = start(AgentSetup.DEFAULTS);
        assertEquals(0, h.agent.metrics().volumeCopyBytes());
    }

    @Test
    void aVolumeBeyondTheLimitIsServedMappedAndStillReadable() throws Exception {
        AgentHarness h = start(copiesWithin(1 << 20)); // 2.dat and 3.dat fit, 1.dat (2.5 MB) does not
        assertEquals(datBytes(h, 2, 3), h.agent.metrics().volumeCopyBytes());
        AgentTestClient client = sidecar(h);
        VolumeInfo one = volume(client, 1);
        byte[] dat = Files.readAllBytes(h.dir.resolve("1.dat"));
        Map<Long, long[]> live = replay(fullSync(client, 1, one.epoch()).toArray(SyncEntries[]::new));
        assertEquals(298, live.size());
        for (Map.Entry<Long, long[]> needle : live.entrySet()) {
            int offset = (int) needle.getValue()[0];
            int length = (int) NeedleLayout.recordLength(needle.getValue()[1], 3);
            assertArrayEquals(Arrays.copyOfRange(dat, offset, offset + length), client.get(one, offset, length),
                    "needle " + Long.toHexString(needle.getKey()) + " of the mapped volume");
        }
    }

    @Test
    void aGrowingTailIsCopiedLargerOnceThenFilledInPlaceAndTheOldCopyRetired() throws Exception {
        AgentHarness h = start(copiesWithin(DEFAULT_LIMIT));
        AgentTestClient client = sidecar(h);
        long copied = datBytes(h, 1, 2, 3);
        assertEquals(copied, h.agent.metrics().volumeCopyBytes(), "exact copies at open");
        VolumeInfo before = volume(client, 2);
        Segment oldTail = before.segments().get(0);
        assertEquals(942856, oldTail.length());

        long first = append(h, client, 0x2001, 1000, 11);
        VolumeInfo grown = awaitVolume(client, 2, v -> v.datSize() == sizeOf(h.dir.resolve("2.dat")));
        Segment roomyTail = grown.segments().get(0);
        assertNotEquals(oldTail.address(), roomyTail.address(), "a tail copied exactly has no room: copied again");
        assertRecordReadable(h, client, grown, 0x2001, first);
        // The new tail has room for twice its bytes (whole pages); the old one is retired: held for both graces (10 s
        // each, far longer than this test), then freed (RetiredMappingsTest).
        long room = (2 * grown.datSize() + 4095) / 4096 * 4096;
        assertEquals(copied + room, h.agent.metrics().volumeCopyBytes());

        long second = append(h, client, 0x2002, 2000, 12);
        VolumeInfo filled = awaitVolume(client, 2, v -> v.datSize() == sizeOf(h.dir.resolve("2.dat")));
        Segment sameTail = filled.segments().get(0);
        assertEquals(roomyTail.address(), sameTail.address(), "bytes appended into the tail's room in place");
        assertEquals(roomyTail.length() + (filled.datSize() - grown.datSize()), sameTail.length());
        assertRecordReadable(h, client, filled, 0x2002, second);
        assertRecordReadable(h, client, grown, 0x2001, first); // a reader of the shorter list reads the same bytes
        assertEquals(copied + room, h.agent.metrics().volumeCopyBytes(), "no new memory");
    }

    @Test
    void compactionCopiesTheNewEpochAndRetiresTheOldCopy() throws Exception {
        AgentHarness h = start(copiesWithin(DEFAULT_LIMIT));
        long copied = datBytes(h, 1, 2, 3);
        AgentTestClient client = sidecar(h);
        long old = volume(client, 2).epoch();
        Path staging = Files.createDirectories(tmp.resolve("staging"));
        SuperBlock compacted = new SuperBlock(3, 0, Ttl.NONE, 1, null);
        try (VolumeWriter writer = VolumeWriter.create(staging.resolve("2.cpd"), staging.resolve("2.cpx"), compacted,
                IndexFormat.OFFSET4)) {
            writer.append(NewNeedle.builder(0x11, 1, randomBytes(5000, 5)).appendAtNs(6).build());
        }
        Files.move(staging.resolve("2.cpd"), h.dir.resolve("2.dat"), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
        Files.move(staging.resolve("2.cpx"), h.dir.resolve("2.idx"), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
        VolumeInfo now = awaitVolume(client, 2, v -> v.epoch() != old);
        LookupResult found = awaitFound(client, 2, 0x11, 1);
        byte[] dat = Files.readAllBytes(h.dir.resolve("2.dat"));
        assertArrayEquals(Arrays.copyOfRange(dat, (int) found.offset(), (int) (found.offset() + found.recordSize())),
                client.get(now, found.offset(), (int) found.recordSize()));
        // The new 2.dat is copied; the old copy is retired, held for both graces (far longer than this test).
        awaitCopyBytes(h, copied + Files.size(h.dir.resolve("2.dat")));
    }

    private static long append(AgentHarness h, AgentTestClient client, long key, int size, long seed) throws Exception {
        try (VolumeWriter writer =
                VolumeWriter.append(h.dir.resolve("2.dat"), h.dir.resolve("2.idx"), IndexFormat.OFFSET4)) {
            return writer.append(NewNeedle.builder(key, 7, randomBytes(size, seed)).appendAtNs(seed).build());
        }
    }

    private static void assertRecordReadable(AgentHarness h, AgentTestClient client, VolumeInfo volume, long key,
                                             long offset) throws Exception {
        LookupResult found = awaitFound(client, 2, key, 7);
        assertEquals(offset, found.offset());
        byte[] dat = Files.readAllBytes(h.dir.resolve("2.dat"));
        assertArrayEquals(Arrays.copyOfRange(dat, (int) offset, (int) (offset + found.recordSize())),
                client.get(volume, offset, (int) found.recordSize()), "needle " + Long.toHexString(key));
    }

    private static long datBytes(AgentHarness h, long... volumeIds) throws Exception {
        long sum = 0;
        for (long id : volumeIds) {
            sum += Files.size(h.dir.resolve(id + ".dat"));
        }
        return sum;
    }

    private static void awaitCopyBytes(AgentHarness h, long expected) {
        until("UCX bytes held for copies: " + expected, () -> h.agent.metrics().volumeCopyBytes() == expected);
    }
}
