package org.seaweedfs.rdma.sidecar.read;

import org.seaweedfs.rdma.testing.AgentSetup;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.StaticAgentRouter;
import org.seaweedfs.rdma.sidecar.connection.AgentConnection;
import org.seaweedfs.rdma.sidecar.connection.AgentError;
import org.seaweedfs.rdma.sidecar.locations.LocationCache;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;
import static org.seaweedfs.rdma.testing.Await.until;

import io.netty.util.IllegalReferenceCountException;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.seaweedfs.rdma.agent.TestAgents;
import org.seaweedfs.rdma.agent.VolumeMemory;
import org.seaweedfs.rdma.protocol.ErrorCode;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.Fixtures;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NeedleRecord;
import org.seaweedfs.rdma.volume.NeedleHeader;
import org.seaweedfs.rdma.volume.NeedleMap;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.Volume;
import org.seaweedfs.rdma.volume.VolumeFiles;
import org.seaweedfs.rdma.volume.VolumeWriter;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.SparseVolumes;

/** The RDMA read path end to end: a real agent and sidecar in separate Vert.x instances, UCX over loopback. */
class NeedleReaderTest {

    private static final String TLS = "sm,tcp,self";
    private static final RegisteredBufferPool.Settings POOL =
            new RegisteredBufferPool.Settings(64 << 10, 64, 1 << 20, 16);

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private AgentHarness agent(AgentSetup setup) {
        AgentHarness agent = new AgentHarness(dir, TLS, setup);
        open.add(agent);
        return agent;
    }

    private ReadPathHarness.SidecarSide sidecar(RegisteredBufferPool.Settings pool) {
        ReadPathHarness.SidecarSide sidecar = new ReadPathHarness.SidecarSide(TLS, pool);
        open.add(sidecar);
        return sidecar;
    }

    private NeedleReader reader(ReadPathHarness.SidecarSide sidecar, AgentConnection connection) {
        return sidecar.reader(new StaticAgentRouter(connection), ReadPathOptions.defaults());
    }

    /** Every live needle of the volumes in {@code dir}, with the bytes the volume format library reads. */
    private record Expected(FileId fid, byte[] data, String name) {
    }

    private List<Expected> expected() throws IOException {
        List<Expected> all = new ArrayList<>();
        for (long vid : new long[] {1, 2, 3}) {
            try (Volume volume = Volume.open(VolumeFiles.of(dir.resolve(vid + ".dat")), IndexFormat.of(false))) {
                NeedleMap map = volume.map();
                List<long[]> entries = new ArrayList<>();
                map.forEach((key, offset, size) -> entries.add(new long[] {key, offset, size}));
                for (long[] e : entries) {
                    if (e[2] == 0) {
                        continue;
                    }
                    ByteBuffer record = volume.readRecord(e[1], e[2]);
                    int cookie = NeedleHeader.parse(record, 0, "test", e[1]).cookie();
                    NeedleRecord needle = volume.read(e[0], cookie, System.currentTimeMillis()).orElseThrow();
                    byte[] data = new byte[needle.dataLength()];
                    needle.data().get(data);
                    all.add(new Expected(new FileId(vid, e[0], cookie), data, needle.meta().name()));
                }
            }
        }
        return all;
    }

    private static byte[] bytesOf(NeedleContent content) {
        Buffer all = Buffer.buffer();
        content.chunks().forEach(all::appendBuffer);
        return all.getBytes();
    }

    private static byte[] readBytes(NeedleSource source, FileId fid) {
        NeedleContent content = await(source.read(fid));
        try {
            return bytesOf(content);
        } finally {
            content.release();
        }
    }

    private static ReadFailure failure(Future<?> read) {
        return assertThrows(ReadFailure.class, () -> await(read));
    }

    private void copyFixtures() {
        Fixtures.copyDir("volumes", dir);
    }

    /** Serves the volumes from {@code memory}: registered file mappings, or UCX copies read over shared memory. */
    private static AgentSetup servedFrom(VolumeMemory memory) {
        return AgentSetup.config("volumeMemory: " + memory.configName());
    }

    @ParameterizedTest(name = "agent.volumeMemory {0}")
    @EnumSource(VolumeMemory.class)
    void everyLiveNeedleOfEveryFixtureVolumeEqualsTheFile(VolumeMemory memory) throws IOException {
        copyFixtures();
        List<Expected> expected = expected();
        assertEquals(298 + 7, expected.size());
        AgentHarness agent = agent(servedFrom(memory));
        assertEquals(memory == VolumeMemory.UCX,
                agent.agent.metrics().volumeStatus().stream().allMatch(v -> v.memory().equals("ucx")));
        ReadPathHarness.SidecarSide sidecar = sidecar(POOL);
        AgentConnection connection = sidecar.connect(agent.port(), null);
        assertEquals(AgentConnection.State.READY, connection.state());
        NeedleReader reader = reader(sidecar, connection);
        List<Long> volumes = expected.stream().map(e -> e.fid().volumeId()).distinct().toList();
        until("every volume's exposed index loaded", () -> volumes.stream()
                .allMatch(v -> connection.volume(v).locations().remoteIndex() != null));
        for (Expected e : expected) {
            NeedleContent content = await(reader.read(e.fid()));
            assertArrayEquals(e.data(), bytesOf(content), e.fid().toString());
            assertEquals(e.name(), content.stat().name());
            assertEquals("rdma", content.stat().source());
            content.release();
        }
        assertEquals(0, sidecar.pool.inUse());
        assertEquals(expected.size(), reader.counters().served());
        // Nothing is known before a read: each is found in the agent's exposed index, but for the entries at the end of
        // each .idx, which the agent checks and applies after writing the index (absent from it: looked up).
        long lookups = reader.counters().lookups();
        LocationCache cache = connection.volume(1).locations().cache();
        assertEquals(expected.size(), lookups + reader.counters().oneSided());
        assertEquals(lookups, agent.agent.metrics().lookups().sum(), "the agent answered each lookup sent");
        assertEquals(lookups, cache.fallbacks("absent"), "only needles the exposed index lacks are looked up");
        assertTrue(lookups <= volumes.size() * 10L, lookups + " lookups for the last 10 entries of each .idx");
        assertEquals(expected.size() - lookups, cache.oneSidedLookups(), "the rest found one-sidedly");
        for (Expected e : expected) {
            NeedleContent again = await(reader.read(e.fid()));
            assertArrayEquals(e.data(), bytesOf(again), e.fid().toString());
            again.release();
        }
        assertEquals(lookups, reader.counters().lookups(), "the second pass looks nothing up again");
        // A same-host agent's UCX copies are mapped here: every record was verified and handed back where it lies.
        assertEquals(memory == VolumeMemory.UCX ? 2L * expected.size() : 0, sidecar.ucx.metrics().laneViews().sum());
        // A same-host agent's mapped volume files are mapped here: the same, with no get for the agent to answer.
        assertEquals(memory == VolumeMemory.MAPPED ? 2L * expected.size() : 0,
                sidecar.ucx.metrics().laneFileViews().sum());
        ReadFailure wrongCookie = failure(reader.read(new FileId(2, expected.get(300).fid().key(), 12345)));
        assertEquals(ReadFailure.Kind.NOT_FOUND, wrongCookie.kind());
        assertEquals(ReadFailure.Kind.NOT_FOUND, failure(reader.read(new FileId(2, 0xdeadbeefL, 1))).kind());
        assertEquals(ReadFailure.Kind.NOT_FOUND, failure(reader.read(new FileId(77, 1, 1))).kind());
    }

    @Test
    void theReadThroughPathServesTheSameBytesWithTheSameChecks() throws IOException {
        copyFixtures();
        List<Expected> expected = expected();
        AgentHarness agent = agent(AgentSetup.DEFAULTS);
        ReadPathHarness.SidecarSide sidecar = sidecar(POOL);
        AgentConnection connection = sidecar.connect(agent.port(), null);
        ReadThroughSource source =
                new ReadThroughSource(sidecar.vertx, new StaticAgentRouter(connection), ReadPathOptions.defaults());
        for (Expected e : expected) {
            assertArrayEquals(e.data(), readBytes(source, e.fid()), e.fid().toString());
        }
        NeedleStat stat = await(source.stat(expected.get(0).fid()));
        assertEquals("read-through", stat.source());
        assertEquals(ReadFailure.Kind.NOT_FOUND,
                failure(source.read(new FileId(2, expected.get(300).fid().key(), 12345))).kind());
    }

    @ParameterizedTest(name = "agent.volumeMemory {0}")
    @EnumSource(VolumeMemory.class)
    void aRecordAcrossASegmentBoundaryReadsWhole(VolumeMemory memory) throws IOException {
        // Copies of a 1 GiB segment take seconds: copied volumes are served in small segments.
        long segment = memory == VolumeMemory.UCX ? TestAgents.SMALL_SEGMENT_BYTES : TestAgents.SEGMENT_BYTES;
        byte[] first = random(3000, 1);
        byte[] across = random(100_000, 2);
        try (VolumeWriter writer = newVolume(4)) {
            writer.append(NewNeedle.builder(1, 1, first).build());
        }
        long at = SparseVolumes.appendAt(dir.resolve("4.dat"), dir.resolve("4.idx"), IndexFormat.of(false),
                segment - 50_000, NewNeedle.builder(2, 1, across).build());
        AgentHarness agent = agent(servedFrom(memory).inSegmentsOf(segment));
        ReadPathHarness.SidecarSide sidecar = sidecar(POOL);
        AgentConnection connection = sidecar.connect(agent.port(), null);
        assertEquals(2, connection.volume(4).info().segments().size());
        assertTrue(at < segment && at + across.length > segment, "the record starts in one and ends in the other");
        NeedleReader reader = reader(sidecar, connection);
        assertArrayEquals(first, readBytes(reader, new FileId(4, 1, 1)));
        assertArrayEquals(across, readBytes(reader, new FileId(4, 2, 1)));
    }

    private VolumeWriter newVolume(long vid) throws IOException {
        return VolumeWriter.create(dir, "", vid, 3, IndexFormat.of(false));
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @ParameterizedTest(name = "agent.volumeMemory {0}")
    @EnumSource(VolumeMemory.class)
    void appendedNeedlesBecomeReadableAndDeletedOnesNotFound(VolumeMemory memory) throws Exception {
        try (VolumeWriter writer = newVolume(9)) {
            writer.append(NewNeedle.builder(1, 11, random(1000, 1)).build());
            AgentHarness agent = agent(servedFrom(memory));
            ReadPathHarness.SidecarSide sidecar = sidecar(POOL);
            NeedleReader reader = reader(sidecar, sidecar.connect(agent.port(), null));
            assertArrayEquals(random(1000, 1), readBytes(reader, new FileId(9, 1, 11)));

            writer.append(NewNeedle.builder(2, 22, random(3000, 2)).build());
            FileId added = new FileId(9, 2, 22);
            assertArrayEquals(random(3000, 2), eventually(() -> readBytes(reader, added)));
            // Served from copies, the tail now has room: this append is copied in place (same segment, longer).
            writer.append(NewNeedle.builder(3, 33, random(5000, 3)).build());
            assertArrayEquals(random(5000, 3), eventually(() -> readBytes(reader, new FileId(9, 3, 33))));
            assertArrayEquals(random(3000, 2), readBytes(reader, added));

            writer.delete(1, 11, System.nanoTime());
            ReadFailure gone = eventually(() -> {
                ReadFailure f = failure(reader.read(new FileId(9, 1, 11)));
                return Optional.of(f);
            }, 10_000);
            assertEquals(ReadFailure.Kind.NOT_FOUND, gone.kind());
        }
    }

    private interface Attempt<T> {
        Optional<T> get() throws Exception;
    }

    /** Retries until the read answers (the agent follows the files on a poll; timing is not asserted). */
    private static byte[] eventually(java.util.concurrent.Callable<byte[]> read) throws Exception {
        return eventually(() -> {
            try {
                return Optional.of(read.call());
            } catch (ReadFailure e) {
                return Optional.empty();
            }
        }, 10_000);
    }

    private static <T> T eventually(Attempt<T> attempt, long limitMs) {
        return until("an answer", () -> {
            try {
                return attempt.get();
            } catch (AssertionError e) {
                return Optional.<T>empty();
            }
        }, Optional::isPresent, java.time.Duration.ofMillis(limitMs)).get();
    }

    @ParameterizedTest(name = "agent.volumeMemory {0}")
    @EnumSource(VolumeMemory.class)
    void aFlippedDataByteOnDiskIsCorruptNeverTheBytes(VolumeMemory memory) throws Exception {
        long offset;
        try (VolumeWriter writer = newVolume(4)) {
            offset = writer.append(NewNeedle.builder(5, 55, random(2000, 5)).build());
        }
        try (FileChannel dat =
                FileChannel.open(dir.resolve("4.dat"), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long at = offset + 16 + 4 + 100;
            ByteBuffer one = ByteBuffer.allocate(1);
            dat.read(one, at);
            one.put(0, (byte) (one.get(0) ^ 0x40)).rewind();
            dat.write(one, at);
        }
        AgentHarness agent = agent(servedFrom(memory));
        ReadPathHarness.SidecarSide sidecar = sidecar(POOL);
        NeedleReader reader = reader(sidecar, sidecar.connect(agent.port(), null));
        ReadFailure f = failure(reader.read(new FileId(4, 5, 55)));
        assertEquals(memory == VolumeMemory.UCX ? 1 : 0, sidecar.ucx.metrics().laneViews().sum(),
                "checked where it lies in the agent's copy");
        assertEquals(memory == VolumeMemory.MAPPED ? 1 : 0, sidecar.ucx.metrics().laneFileViews().sum(),
                "checked where it lies in the agent's file");
        assertEquals(ReadFailure.Kind.CORRUPT, f.kind());
        assertEquals(502, f.code());
        assertEquals(0, sidecar.pool.inUse());
        assertEquals(1, reader.counters().failures(ReadFailure.Kind.CORRUPT));
    }

    @Test
    void aBigNeedleIsReadInChunksAndAPoolTooSmallForItRefusesAtOnce() throws Exception {
        byte[] big = random(5 * 1024 * 1024 + 123, 7);
        try (VolumeWriter writer = newVolume(6)) {
            writer.append(NewNeedle.builder(1, 1, big).name("big.bin").build());
        }
        // An agent that does not tell its file (protocol 4), as across hosts: the record is read with gets.
        AgentHarness agent = new AgentHarness(dir, AgentHarness.ucx(TLS), AgentSetup.DEFAULTS,
                a -> a.speakProtocolAtMost(4));
        open.add(agent);
        ReadPathHarness.SidecarSide sidecar = sidecar(POOL);
        AgentConnection connection = sidecar.connect(agent.port(), null);
        NeedleReader reader = reader(sidecar, connection);
        NeedleContent content = await(reader.read(new FileId(6, 1, 1)));
        assertTrue(content.chunks().size() >= 6, "chunks: " + content.chunks().size());
        assertArrayEquals(big, bytesOf(content));
        assertEquals("big.bin", content.stat().name());
        assertEquals(6, sidecar.pool.inUse());
        assertTrue(content.releaseRevokesChunks());
        content.release();
        content.release();
        assertEquals(0, sidecar.pool.inUse());
        for (Buffer chunk : content.chunks()) { // the buffers went back to the pool: using a chunk throws
            assertThrows(IllegalReferenceCountException.class, () -> chunk.getByte(0));
        }

        NeedleReader bounded =
                sidecar.reader(new StaticAgentRouter(connection), new ReadPathOptions(5_000, 1 << 20));
        ReadFailure tooLarge = failure(bounded.read(new FileId(6, 1, 1)));
        assertEquals(ReadFailure.Kind.TOO_LARGE, tooLarge.kind());
        assertEquals(413, tooLarge.code());
        assertFalse(tooLarge.retriable());
        assertTrue(tooLarge.getMessage().contains("sidecar.maxNeedleBytes"), tooLarge.getMessage());

        ReadPathHarness.SidecarSide small = sidecar(new RegisteredBufferPool.Settings(4096, 0, 1 << 20, 2));
        NeedleReader starved =
                small.reader(new StaticAgentRouter(small.connect(agent.port(), null)), ReadPathOptions.defaults());
        ReadFailure f = failure(starved.read(new FileId(6, 1, 1)));
        assertEquals(ReadFailure.Kind.UNAVAILABLE, f.kind());
        assertTrue(f.retriable());
        assertEquals(1, small.pool.exhausted());
    }

    /**
     * A record read where it lies in the agent's UCX copy holds that memory: the agent stops (its copies deregistered,
     * the channel and its lane closed) while the content is held, and the content still has the needle's bytes; once
     * released, the lane's key copy closes.
     */
    @Test
    void aRecordReadWhereItLiesStaysUntilReleasedThoughTheAgentStops() throws Exception {
        byte[] data = random(3 * 1024 * 1024 + 5, 21);
        try (VolumeWriter writer = newVolume(4)) {
            writer.append(NewNeedle.builder(9, 99, data).build());
        }
        AgentHarness agent = new AgentHarness(dir, TLS, servedFrom(VolumeMemory.UCX));
        ReadPathHarness.SidecarSide sidecar = sidecar(POOL);
        AgentConnection connection = sidecar.connect(agent.port(), null);
        NeedleReader reader = reader(sidecar, connection);
        NeedleContent held = await(reader.read(new FileId(4, 9, 99)));
        assertEquals(1, sidecar.ucx.metrics().laneViews().sum(), "read where it lies");
        assertEquals(0, sidecar.pool.inUse(), "no pool buffer");
        agent.close();
        await(connection.closeFuture());
        until("the lane to the stopped agent closed", () -> sidecar.ucx.metrics().lanes() == 0);
        assertTrue(sidecar.ucx.metrics().laneRemoteKeys() > 0, "the held record keeps its key copy");
        assertArrayEquals(data, bytesOf(held));
        held.release();
        assertThrows(IllegalReferenceCountException.class, () -> held.chunks().get(0).getBytes(),
                "a released record's chunk is not read");
        until("the key copy closed with the release", () -> sidecar.ucx.metrics().laneRemoteKeys() == 0);
    }

    @Test
    void stoppingTheAgentFailsReadsFastAndRetriablyAndANewConnectionReadsAgain() throws Exception {
        copyFixtures();
        Expected e = expected().get(0);
        AgentHarness agent = new AgentHarness(dir, TLS, AgentSetup.DEFAULTS);
        ReadPathHarness.SidecarSide sidecar = sidecar(POOL);
        AgentConnection connection = sidecar.connect(agent.port(), null);
        StaticAgentRouter router = new StaticAgentRouter(connection);
        NeedleReader reader = sidecar.reader(router, ReadPathOptions.defaults());
        assertArrayEquals(e.data(), readBytes(reader, e.fid()));

        agent.close();
        await(connection.closeFuture());
        assertEquals(AgentConnection.State.CLOSED, connection.state());
        ReadFailure down = failure(reader.read(e.fid()));
        assertEquals(ReadFailure.Kind.UNAVAILABLE, down.kind());
        assertTrue(down.retriable());
        assertEquals(ReadFailure.Kind.UNAVAILABLE, failure(connection.ping()).kind());

        AgentHarness restarted = agent(AgentSetup.DEFAULTS);
        AgentConnection again = sidecar.connect(restarted.port(), null);
        router.set(again);
        assertArrayEquals(e.data(), readBytes(reader, e.fid()));
        assertFalse(again.agentId().equals(connection.agentId()));
        assertTrue(await(again.ping()).toNanos() > 0);
        assertEquals(0, sidecar.pool.inUse());
    }

    @Test
    void aWrongTokenIsRefusedAndNotRetriable() throws Exception {
        copyFixtures();
        AgentHarness agent = agent(AgentSetup.config("authToken: s3cret"));
        ReadPathHarness.SidecarSide sidecar = sidecar(POOL);
        AgentError refused = assertThrows(AgentError.class, () -> sidecar.connect(agent.port(), "wrong"));
        assertEquals(ErrorCode.UNAUTHORIZED, refused.code());
        assertFalse(refused.retriable());
        assertThrows(AgentError.class, () -> sidecar.connect(agent.port(), null));
        AgentConnection ok = sidecar.connect(agent.port(), "s3cret");
        assertTrue(ok.isReady());
        assertEquals(java.util.Set.of(1L, 2L, 3L), ok.volumeIds());
        await(ok.close());
        assertEquals(AgentConnection.State.CLOSED, ok.state());
        assertEquals(null, ok.closeCause());
    }
}
