package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.testing.AgentSetup;
import io.vertx.core.DeploymentOptions;
import org.seaweedfs.rdma.testing.AgentHarness;
import io.vertx.core.ThreadingModel;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.protocol.ControlCodec;
import org.seaweedfs.rdma.protocol.ControlMessage;
import org.seaweedfs.rdma.protocol.ErrorCode;
import org.seaweedfs.rdma.protocol.ErrorReply;
import org.seaweedfs.rdma.protocol.Hello;
import org.seaweedfs.rdma.protocol.HelloOk;
import org.seaweedfs.rdma.protocol.Lookup;
import org.seaweedfs.rdma.protocol.LookupResult;
import org.seaweedfs.rdma.protocol.Ping;
import org.seaweedfs.rdma.protocol.Pong;
import org.seaweedfs.rdma.protocol.ReadThrough;
import org.seaweedfs.rdma.protocol.ReadThroughData;
import org.seaweedfs.rdma.protocol.Segment;
import org.seaweedfs.rdma.protocol.SyncEntries;
import org.seaweedfs.rdma.protocol.SyncEntryReader;
import org.seaweedfs.rdma.protocol.SyncRequest;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.protocol.VolumeList;
import org.seaweedfs.rdma.protocol.VolumeListRequest;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.testing.SparseVolumes;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NeedleLayout;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.VolumeWriter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.seaweedfs.rdma.agent.AgentTestClient.connect;
import static org.seaweedfs.rdma.agent.AgentTestClient.sidecar;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.agent.AgentTestClient.fullSync;
import static org.seaweedfs.rdma.agent.AgentTestClient.volume;
import static org.seaweedfs.rdma.testing.Await.await;

/** The control protocol served over real UCX (loopback) against copies of the SeaweedFS fixture volumes. */
class AgentProtocolTest extends AgentTestBase {

    /** A volume whose index does not fit one sync frame of 4 MiB (209 712 entries): written once per class. */
    private static final long MANY_NEEDLES_VOLUME = 9;
    private static final int MANY_NEEDLES = new ControlCodec().maxSyncEntriesPerFrame() + 1000;

    @TempDir
    static Path manyNeedles;

    @BeforeAll
    static void writeManyNeedles() throws IOException {
        byte[] body = {42};
        try (VolumeWriter writer = VolumeWriter.create(manyNeedles, "", MANY_NEEDLES_VOLUME, 3, IndexFormat.OFFSET4)) {
            for (int key = 1; key <= MANY_NEEDLES; key++) {
                writer.append(NewNeedle.builder(key, 7, body).build());
            }
        }
    }

    @Test
    void helloThenPing() throws Exception {
        AgentHarness h = start(AgentSetup.DEFAULTS);
        AgentTestClient client = connect(h);
        HelloOk ok = assertInstanceOf(HelloOk.class, client.hello(null));
        assertEquals(ControlCodec.PROTOCOL_VERSION, ok.protocolVersion());
        assertEquals(h.agent.instanceId(), ok.agentId());
        assertTrue(ok.agentId().startsWith(h.agent.settings().agentId() + "/"));
        // what a sidecar needs to refuse an agent whose UCX could abort it, and to name another UCX version
        assertEquals(org.seaweedfs.rdma.ucx.UcxLibrary.version(), ok.ucxVersion());
        assertTrue(ok.ucxVersion().matches("\\d+\\.\\d+\\.\\d+"), ok.ucxVersion());
        assertEquals(h.ucx.settings().peerSettings(), ok.ucxSettings());
        assertEquals(262144L, ok.ucxSettings().get("TCP_RX_SEG_SIZE"));
        Pong pong = client.request(id -> new Ping(id, 12345), Pong.class);
        assertEquals(12345, pong.sentNanos());
        assertTrue(pong.agentTimeMs() > 0);
    }

    @Test
    void requestsBeforeHelloAreRefused() throws Exception {
        AgentTestClient client = connect(start(AgentSetup.DEFAULTS));
        assertError(ErrorCode.HANDSHAKE_REQUIRED, client.request(VolumeListRequest::new));
        assertError(ErrorCode.HANDSHAKE_REQUIRED, client.request(id -> new Lookup(id, 1, 1, 1)));
        assertInstanceOf(HelloOk.class, client.hello(null));
        assertInstanceOf(VolumeList.class, client.request(VolumeListRequest::new));
    }

    @Test
    void anotherProtocolVersionIsRefused() throws Exception {
        AgentTestClient client = connect(start(AgentSetup.DEFAULTS));
        assertError(ErrorCode.UNSUPPORTED_VERSION,
                client.request(id -> new Hello(id, ControlCodec.PROTOCOL_VERSION + 1, "future-sidecar", null)));
        // a sidecar of the release before, which cannot check UCX settings, learns why it is refused
        ErrorReply older =
                assertInstanceOf(ErrorReply.class, client.request(id -> new Hello(id, 2, "older-sidecar", null)));
        assertEquals(ErrorCode.UNSUPPORTED_VERSION, older.code());
        assertEquals("Hello.protocolVersion: 2 is not spoken here; this agent speaks 3 to 5 (run the same release on "
                + "agents and sidecars)", older.message());
    }

    @Test
    void aWrongOrMissingTokenIsRefusedAndTheChannelClosed() throws Exception {
        AgentHarness h = start(AgentSetup.config("authToken: s3cret"));
        for (String token : new String[] {"wrong", null, "s3cret-and-more"}) {
            AgentTestClient client = connect(h);
            CompletableFuture<Throwable> closed = new CompletableFuture<>();
            client.channel().closeHandler(closed::complete);
            assertError(ErrorCode.UNAUTHORIZED, client.hello(token));
            closed.get(AgentTestClient.TIMEOUT_S, TimeUnit.SECONDS);
            assertFalse(client.channel().isOpen());
        }
        assertEquals(3, h.agent.metrics().unauthorized().sum());
        AgentTestClient good = connect(h);
        assertInstanceOf(HelloOk.class, good.hello("s3cret"));
        assertInstanceOf(VolumeList.class, good.request(VolumeListRequest::new));
    }

    @Test
    void volumeListDescribesEveryFixtureVolume() throws Exception {
        AgentHarness h = start(AgentSetup.DEFAULTS);
        VolumeList list = sidecar(h).request(VolumeListRequest::new, VolumeList.class);
        assertEquals(List.of(1L, 2L, 3L), list.volumes().stream().map(VolumeInfo::volumeId).toList());
        Set<Long> epochs = new HashSet<>();
        for (VolumeInfo v : list.volumes()) {
            long datSize = Files.size(h.dir.resolve(v.volumeId() + ".dat"));
            assertEquals(3, v.version());
            assertEquals("", v.collection());
            assertEquals(datSize, v.datSize());
            assertEquals(Files.size(h.dir.resolve(v.volumeId() + ".idx")), v.idxPosition());
            assertCutInto(segmentBytes(), v);
            assertNotEquals(0, v.epoch());
            epochs.add(v.epoch());
        }
        assertEquals(3, epochs.size(), "each volume has its own epoch");
        assertEquals(Map.of(1L, 298, 2L, 7, 3L, 0), h.agent.metrics().needlesPerVolume());
        assertEquals(3, h.agent.metrics().volumes());
    }

    @Test
    void lookupsOfKnownDeletedAndMissingNeedles() throws Exception {
        AgentHarness h = start(AgentSetup.DEFAULTS);
        AgentTestClient client = sidecar(h);
        byte[] dat1 = Files.readAllBytes(h.dir.resolve("1.dat"));
        for (String fid : new String[] {"1,01bb51ad02", "1,02dfabcb70"}) {
            FileId id = FileId.parse(fid);
            LookupResult found =
                    client.request(r -> new Lookup(r, id.volumeId(), id.key(), id.cookie()), LookupResult.class);
            assertTrue(found.found(), fid);
            assertEquals(volume(client, 1).epoch(), found.epoch());
            ByteBuffer header = ByteBuffer.wrap(dat1, (int) found.offset(), 16);
            assertEquals(id.cookie(), header.getInt());
            assertEquals(id.key(), header.getLong());
            assertEquals(found.size(), header.getInt() & 0xFFFF_FFFFL);
            assertEquals(NeedleLayout.recordLength(found.size(), 3), found.recordSize());
        }
        FileId file2 = FileId.parse("2,0306bfd555");
        assertTrue(client.request(r -> new Lookup(r, 2, file2.key(), file2.cookie()), LookupResult.class).found());
        assertFalse(client.request(r -> new Lookup(r, 2, file2.key(), file2.cookie() ^ 1), LookupResult.class).found(),
                "a wrong cookie reads as not found");
        LookupResult deleted = client.request(r -> new Lookup(r, 2, 0x14, 0), LookupResult.class);
        assertFalse(deleted.found(), "key 0x14 of volume 2 was deleted");
        assertEquals(0, deleted.offset());
        assertFalse(client.request(r -> new Lookup(r, 1, 0xFFFF_FFFFL, 0), LookupResult.class).found());
        assertError(ErrorCode.UNKNOWN_VOLUME, client.request(r -> new Lookup(r, 99, 1, 1)));
        assertTrue(h.agent.metrics().lookups().sum() >= 6);
    }

    @Test
    void fullAndIncrementalSyncReplayTheIndex() throws Exception {
        AgentHarness h = start(AgentSetup.DEFAULTS);
        AgentTestClient client = sidecar(h);
        List<SyncEntries> one = fullSync(client, 1, 0);
        assertEquals(1, one.size());
        assertEquals(298, one.get(0).entryCount());
        assertEquals(4768, one.get(0).toPosition());
        assertEquals(volume(client, 1).epoch(), one.get(0).epoch());

        SyncEntries two = fullSync(client, 2, 0).get(0);
        assertEquals(27, two.entryCount());
        assertEquals(7, replay(two).size());
        assertFalse(replay(two).containsKey(0x14L));

        SyncEntries three = fullSync(client, 3, 0).get(0);
        assertEquals(0, three.entryCount());
        assertEquals(0, three.toPosition());
        assertFalse(three.more());

        long epoch = volume(client, 1).epoch();
        SyncEntries tail = client.request(id -> new SyncRequest(id, 1, epoch, 16 * 290), SyncEntries.class);
        assertEquals(8, tail.entryCount());
        assertArrayEquals(Arrays.copyOfRange(one.get(0).entries(), 290 * 20, 298 * 20), tail.entries());

        assertError(ErrorCode.BAD_REQUEST, client.request(id -> new SyncRequest(id, 1, epoch, 17)));
        assertError(ErrorCode.BAD_REQUEST, client.request(id -> new SyncRequest(id, 1, epoch, 4768 + 16)));
        ErrorReply stale =
                assertError(ErrorCode.STALE_EPOCH, client.request(id -> new SyncRequest(id, 1, epoch - 1, 0)));
        assertTrue(stale.retriable());
        assertError(ErrorCode.UNKNOWN_VOLUME, client.request(id -> new SyncRequest(id, 42, 0, 0)));
    }

    @Test
    void aLargeSyncIsCutIntoFramesOfTheMaximumSize() throws Exception {
        AgentHarness h = start(AgentSetup.config("volumeDirs: ['" + manyNeedles + "']"));
        int perFrame = new ControlCodec().maxSyncEntriesPerFrame();
        List<SyncEntries> frames = fullSync(sidecar(h), MANY_NEEDLES_VOLUME, 0);
        assertEquals(2, frames.size());
        assertTrue(frames.get(0).more());
        assertEquals(perFrame, frames.get(0).entryCount(), "the first frame is full: 4 MiB");
        assertEquals(MANY_NEEDLES - perFrame, frames.get(1).entryCount());
        assertFalse(frames.get(1).more());
        assertEquals(frames.get(0).toPosition(), frames.get(1).fromPosition());
        assertEquals(MANY_NEEDLES, replay(frames.toArray(SyncEntries[]::new)).size());
    }

    @Test
    void everyLiveRecordReadWithGetsEqualsTheFile() throws Exception {
        AgentHarness h = start(AgentSetup.DEFAULTS);
        AgentTestClient client = sidecar(h);
        for (long vid : new long[] {1, 2}) {
            VolumeInfo volume = volume(client, vid);
            assertCutInto(segmentBytes(), volume);
            byte[] dat = Files.readAllBytes(h.dir.resolve(vid + ".dat"));
            for (Map.Entry<Long, long[]> needle : replay(fullSync(client, vid, volume.epoch()).get(0)).entrySet()) {
                long offset = needle.getValue()[0];
                int length = (int) NeedleLayout.recordLength(needle.getValue()[1], 3);
                assertArrayEquals(Arrays.copyOfRange(dat, (int) offset, (int) offset + length),
                        client.get(volume, offset, length), "needle " + Long.toHexString(needle.getKey()));
            }
        }
    }

    @Test
    void recordsAcrossSegmentBoundariesReadWhole() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("volumes"));
        Map<Long, Long> offsets = new HashMap<>();
        try (VolumeWriter writer = VolumeWriter.create(dir, "", 5, 3, IndexFormat.OFFSET4)) {
            offsets.put(1L, writer.append(NewNeedle.builder(1, 7, AgentFollowTest.randomBytes(3000, 1)).build()));
        }
        long segment = segmentBytes();
        long[] at = {segment - 4000, segment + 9000, 2 * segment - 8};
        for (int i = 0; i < at.length; i++) {
            long key = 2 + i;
            offsets.put(key, SparseVolumes.appendAt(dir.resolve("5.dat"), dir.resolve("5.idx"), IndexFormat.OFFSET4,
                    at[i], NewNeedle.builder(key, 7, AgentFollowTest.randomBytes(10_000, key)).build()));
        }
        AgentHarness h = start(AgentSetup.DEFAULTS);
        AgentTestClient client = sidecar(h);
        VolumeInfo volume = volume(client, 5);
        assertEquals(3, volume.segments().size());
        assertCutInto(segment, volume);
        Map<Long, long[]> live = replay(fullSync(client, 5, volume.epoch()).get(0));
        assertEquals(offsets.keySet(), live.keySet());
        int straddling = 0;
        for (Map.Entry<Long, long[]> needle : live.entrySet()) {
            long offset = needle.getValue()[0];
            int length = (int) NeedleLayout.recordLength(needle.getValue()[1], 3);
            assertEquals(offsets.get(needle.getKey()), offset);
            straddling += offset / segment != (offset + length - 1) / segment ? 1 : 0;
            assertArrayEquals(SparseVolumes.read(h.dir.resolve("5.dat"), offset, length),
                    client.get(volume, offset, length), "needle " + needle.getKey());
        }
        assertEquals(2, straddling, "a record across each segment boundary");
    }

    @Test
    void readThroughCopiesTheRecord() throws Exception {
        AgentHarness h = start(AgentSetup.DEFAULTS);
        AgentTestClient client = sidecar(h);
        FileId fid = FileId.parse("2,0306bfd555");
        LookupResult where = client.request(r -> new Lookup(r, 2, fid.key(), fid.cookie()), LookupResult.class);
        byte[] dat = Files.readAllBytes(h.dir.resolve("2.dat"));
        byte[] record = Arrays.copyOfRange(dat, (int) where.offset(), (int) (where.offset() + where.recordSize()));

        ReadThroughData all = client.request(r -> new ReadThrough(r, 2, fid.key(), fid.cookie(), 0, 1 << 20),
                ReadThroughData.class);
        assertArrayEquals(record, all.bytes(), "shorter than asked where the record ends");
        assertEquals(where.epoch(), all.epoch());
        ReadThroughData part = client.request(r -> new ReadThrough(r, 2, fid.key(), fid.cookie(), 100, 50),
                ReadThroughData.class);
        assertEquals(100, part.offset());
        assertArrayEquals(Arrays.copyOfRange(record, 100, 150), part.bytes());

        assertError(ErrorCode.BAD_REQUEST,
                client.request(r -> new ReadThrough(r, 2, fid.key(), fid.cookie(), where.recordSize(), 1)));
        assertError(ErrorCode.NOT_FOUND, client.request(r -> new ReadThrough(r, 2, fid.key(), fid.cookie() + 1, 0, 8)));
        assertError(ErrorCode.NOT_FOUND, client.request(r -> new ReadThrough(r, 2, 0x14, 0, 0, 8)));
        assertError(ErrorCode.UNKNOWN_VOLUME,
                client.request(r -> new ReadThrough(r, 5, fid.key(), fid.cookie(), 0, 8)));
        // Above maxReadThroughBytes: only a codec with larger frames can even encode it.
        byte[] tooLong = new ControlCodec(8 << 20).encode(new ReadThrough(77, 2, fid.key(), fid.cookie(), 0, 5 << 20));
        assertError(ErrorCode.TOO_LARGE, client.send(77, tooLong));
        assertEquals(record.length + 50, h.agent.metrics().readThroughBytes().sum());
    }

    @Test
    void malformedAndOversizedFramesAreAnsweredCountedAndSurvived() throws Exception {
        AgentHarness h = start(AgentSetup.DEFAULTS);
        AgentTestClient client = sidecar(h);
        byte[] badBody = {'S', 'W', ControlCodec.PROTOCOL_VERSION, 8, 0, 0, 0, 0, 0, 0, 0, 42, (byte) 0xc1};
        ErrorReply bad = assertError(ErrorCode.BAD_FRAME, client.send(42, badBody));
        assertFalse(bad.retriable());
        assertError(ErrorCode.BAD_FRAME, client.send(0, "not a frame".getBytes()));
        byte[] unknownType = {'S', 'W', ControlCodec.PROTOCOL_VERSION, 99, 0, 0, 0, 0, 0, 0, 0, 43, (byte) 0x90};
        assertError(ErrorCode.BAD_FRAME, client.send(43, unknownType));
        byte[] oldVersion = {'S', 'W', 9, 4, 0, 0, 0, 0, 0, 0, 0, 44, (byte) 0x91, 0};
        assertError(ErrorCode.UNSUPPORTED_VERSION, client.send(44, oldVersion));
        byte[] huge = new byte[(4 << 20) + 1];
        System.arraycopy(badBody, 0, huge, 0, 12);
        huge[11] = 45;
        assertError(ErrorCode.TOO_LARGE, client.send(45, huge));
        byte[] pong = new ControlCodec().encode(new Pong(46, 1, 1));
        assertError(ErrorCode.BAD_FRAME, client.send(46, pong));

        assertEquals(5, h.agent.metrics().badFrames().sum());
        assertEquals(12345, client.request(id -> new Ping(id, 12345), Pong.class).sentNanos(), "still serving");
        assertTrue(client.channel().isOpen());
    }

    @Test
    void stoppingClosesTheListenerAndEveryChannel() throws Exception {
        AgentHarness h = start(AgentSetup.DEFAULTS);
        AgentTestClient client = sidecar(h);
        CompletableFuture<Throwable> closed = new CompletableFuture<>();
        client.channel().closeHandler(closed::complete);
        int port = h.agent.port();
        await(h.vertx.undeploy(h.deployment));
        closed.get(AgentTestClient.TIMEOUT_S, TimeUnit.SECONDS);
        assertFalse(client.channel().isOpen());
        assertThrows(Exception.class, () -> connect(h).hello(null), "nobody listens on " + port + " any more");
    }

    @Test
    void mustBeDeployedAsAWorker() throws Exception {
        AgentHarness h = start(AgentSetup.DEFAULTS);
        AgentVerticle second =
                new AgentVerticle(new UcxWorkerVerticle(AgentTestClient.ucxSettings()), h.agent.settings());
        Exception e = assertThrows(Exception.class, () -> await(h.vertx.deployVerticle(second,
                new DeploymentOptions().setThreadingModel(ThreadingModel.EVENT_LOOP))));
        assertTrue(String.valueOf(e).contains("WORKER"), String.valueOf(e));
    }

    /** Key -> (offset, size) after replaying the entries with SeaweedFS's rule. */
    /** The volume's {@code .dat} is cut at every multiple of {@code segment}: every segment full but the last. */
    static void assertCutInto(long segment, VolumeInfo volume) {
        assertEquals((volume.datSize() + segment - 1) / segment, volume.segments().size());
        for (Segment piece : volume.segments()) {
            assertEquals(piece.index() * segment, piece.fileOffset());
            assertEquals(Math.min(segment, volume.datSize() - piece.fileOffset()), piece.length());
        }
    }

    static Map<Long, long[]> replay(SyncEntries... frames) {
        Map<Long, long[]> live = new HashMap<>();
        for (SyncEntries frame : frames) {
            SyncEntryReader r = frame.reader();
            while (r.next()) {
                if (r.isLive()) {
                    live.put(r.key(), new long[] {r.offset(), r.size()});
                } else {
                    live.remove(r.key());
                }
            }
        }
        return live;
    }

    static ErrorReply assertError(ErrorCode code, ControlMessage reply) {
        ErrorReply error = assertInstanceOf(ErrorReply.class, reply, String.valueOf(reply));
        assertEquals(code, error.code(), error.message());
        return error;
    }
}
