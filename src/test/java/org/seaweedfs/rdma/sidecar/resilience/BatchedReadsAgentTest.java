package org.seaweedfs.rdma.sidecar.resilience;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;
import static org.seaweedfs.rdma.testing.Await.until;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.util.IllegalReferenceCountException;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.client.NeedleClient;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.config.SidecarConfig;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.Admission;
import org.seaweedfs.rdma.sidecar.AdmittedSource;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.StubVolumeServer;
import org.seaweedfs.rdma.sidecar.batch.OrderedReads;
import org.seaweedfs.rdma.sidecar.batch.PlainRange;
import org.seaweedfs.rdma.sidecar.connection.ConnectionManagerVerticle;
import org.seaweedfs.rdma.sidecar.fallback.VolumeServerSource;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.sidecar.read.NeedleReader;
import org.seaweedfs.rdma.sidecar.read.ReadPathOptions;
import org.seaweedfs.rdma.sidecar.read.ReadThroughSource;
import org.seaweedfs.rdma.agent.AgentVerticle;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.AgentSetup;
import org.seaweedfs.rdma.testing.SidecarSetup;
import org.seaweedfs.rdma.ucx.OwnerThreadHold;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.VolumeWriter;

/**
 * Many needles in one call through the whole read path, with a real agent over UCX (shared memory, whose gets land
 * within the call, and TCP, whose gets land later) and a volume written here: the needles whose locations are cached
 * are read with gets posted together, every other one as a single read. Each answer is compared with the volume's
 * bytes and with what a read of that needle alone answers; the buffers all go back to the pool.
 */
class BatchedReadsAgentTest {

    private static final long VOLUME = 4;
    private static final long MAX_NEEDLE = 64L << 20;
    private static final RegisteredBufferPool.Settings POOL =
            new RegisteredBufferPool.Settings(64 << 10, 128, 1 << 20, 8);

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();
    /** The plain bytes of every needle that reads. */
    private final Map<FileId, byte[]> truth = new LinkedHashMap<>();
    private FileId corrupt;
    private FileId deleted;
    private ReadPathHarness.SidecarSide side;
    private NeedleReader reader;
    private ResilientNeedleSource source;
    private AgentHarness agent;

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /** An outcome as a client sees it: the bytes, or the failure's kind (its class when not a ReadFailure). */
    private record Outcome(byte[] bytes, String failure) {

        static Outcome of(AsyncResult<NeedleContent> ar) {
            if (ar.failed()) {
                return new Outcome(null, ar.cause() instanceof ReadFailure f ? f.kind().name()
                        : ar.cause().getClass().getName());
            }
            Buffer all = Buffer.buffer();
            ar.result().chunks().forEach(all::appendBuffer);
            ar.result().release();
            return new Outcome(all.getBytes(), null);
        }
    }

    private void writeVolume() throws IOException {
        Random random = new Random(4);
        long corruptAt;
        try (VolumeWriter writer = VolumeWriter.create(dir, "", VOLUME, 3, IndexFormat.of(false))) {
            for (int i = 0; i < 40; i++) {
                byte[] data = new byte[i % 4 == 0 ? 4096 : 1 + random.nextInt(9000)];
                random.nextBytes(data);
                writer.append(NewNeedle.builder(i + 1, 0x100 + i, data).build());
                truth.put(new FileId(VOLUME, i + 1, 0x100 + i), data);
            }
            byte[] text = "stored gzip, read plain. ".repeat(300).getBytes();
            writer.append(NewNeedle.builder(50, 0x50, gzip(text)).name("t.txt").compressed(true).build());
            truth.put(new FileId(VOLUME, 50, 0x50), text);
            byte[] large = new byte[1536 * 1024]; // above a large buffer: read in chunks, as a single read
            random.nextBytes(large);
            writer.append(NewNeedle.builder(51, 0x51, large).build());
            truth.put(new FileId(VOLUME, 51, 0x51), large);
            byte[] doomed = new byte[3000];
            random.nextBytes(doomed);
            corruptAt = writer.append(NewNeedle.builder(60, 0x60, doomed).build());
            corrupt = new FileId(VOLUME, 60, 0x60);
            writer.append(NewNeedle.builder(70, 0x70, new byte[300]).build());
            writer.delete(70, 0x70, 0);
            deleted = new FileId(VOLUME, 70, 0x70);
        }
        try (FileChannel dat = FileChannel.open(dir.resolve(VOLUME + ".dat"), StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            long at = corruptAt + 16 + 4 + 1000;
            ByteBuffer one = ByteBuffer.allocate(1);
            dat.read(one, at);
            one.put(0, (byte) (one.get(0) ^ 0x5a)).rewind();
            dat.write(one, at);
        }
    }

    private static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(data);
        }
        return out.toByteArray();
    }

    /** {@code setup}: the transports, and " copies" when the agent serves UCX copies (read where they lie). */
    private void start(String setup) throws IOException {
        start(setup, UnaryOperator.identity());
    }

    private void start(String setup, UnaryOperator<AgentVerticle> before) throws IOException {
        writeVolume();
        String tls = setup.replace(" copies", "");
        agent = new AgentHarness(dir, AgentHarness.ucx(tls), setup.endsWith(" copies")
                ? AgentSetup.config("volumeMemory: ucx") : AgentSetup.DEFAULTS, before);
        open.add(agent);
        side = new ReadPathHarness.SidecarSide(tls, POOL);
        open.add(side);
        SidecarConfig config = SidecarSetup.config(
                SidecarSetup.agents(List.of(new HostPort("127.0.0.1", agent.port()))), "maxNeedleBytes: " + MAX_NEEDLE,
                "maxInFlightReads: 256", SidecarSetup.SMALL_POOL, "ping.interval: 60s", "breaker.openDuration: 300ms");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ConnectionManagerVerticle manager = new ConnectionManagerVerticle(config,
                ConnectionManagerVerticle.ucxConnector(side.vertx, side.ucx, config, "test-sidecar"), null,
                new ReadMeters(registry));
        await(side.vertx.deployVerticle(manager));
        StubVolumeServer volumeServer = await(new StubVolumeServer(side.vertx).start(dir));
        open.add(() -> await(volumeServer.stop()));
        ReadPathOptions options = new ReadPathOptions(config.readTimeout().toMillis(), config.maxNeedleBytes());
        reader = side.reader(manager, options);
        source = new ResilientNeedleSource(side.vertx, manager, reader,
                new ReadThroughSource(side.vertx, manager, options),
                new VolumeServerSource(VolumeServerSource.newClient(side.vertx, 8), null,
                        List.of(new HostPort("127.0.0.1", volumeServer.port())), MAX_NEEDLE, Duration.ofSeconds(20)),
                ResilienceSettings.from(config), registry);
        open.add(source::close);
        until("the agent lists the volume", () -> manager.routeFor(VOLUME) != null
                && manager.routeFor(VOLUME).volume() != null);
    }

    /** Every needle that reads, shuffled, with those that do not among them. */
    private List<FileId> mixed() {
        List<FileId> fids = new ArrayList<>(truth.keySet());
        Collections.shuffle(fids, new Random(42));
        fids.add(3, corrupt);
        fids.add(9, deleted);
        fids.add(15, new FileId(VOLUME, 0x7777, 0x1)); // a key the volume never had
        fids.add(20, new FileId(VOLUME, 5, 0x999));    // a live key, the wrong cookie
        fids.add(25, new FileId(77, 1, 1));            // a volume nobody serves
        fids.add(fids.get(0));                        // asked twice, served twice
        return fids;
    }

    /** Runs {@code call} on an event loop of the sidecar, as a verticle would. */
    private <T> T onContext(Supplier<Future<T>> call) {
        Context context = side.vertx.getOrCreateContext();
        Promise<T> result = Promise.promise();
        context.runOnContext(v -> call.get().onComplete(result));
        return await(result.future());
    }

    private List<Outcome> readMany(NeedleSource from, List<FileId> fids) {
        return onContext(() -> {
            List<Future<NeedleContent>> reads = from.readMany(fids, MAX_NEEDLE);
            return Future.join(reads).transform(ar -> {
                List<Outcome> out = new ArrayList<>();
                reads.forEach(r -> out.add(Outcome.of(r)));
                return Future.succeededFuture(out);
            });
        });
    }

    private Outcome readOne(FileId fid) {
        return onContext(() -> source.readSlice(fid, null, 0, -1, MAX_NEEDLE)
                .transform(ar -> Future.succeededFuture(Outcome.of(ar))));
    }

    private void assertRight(List<FileId> fids, List<Outcome> got) {
        assertEquals(fids.size(), got.size());
        for (int i = 0; i < fids.size(); i++) {
            FileId fid = fids.get(i);
            byte[] expected = truth.get(fid);
            if (expected != null) {
                assertArrayEquals(expected, got.get(i).bytes(), fid + " at " + i + ": " + got.get(i).failure());
            } else {
                assertNotNull(got.get(i).failure(), fid + " must fail");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sm,tcp,self", "tcp", "sm,tcp,self copies"})
    void aBatchAnswersAsOneReadOfEachNeedleWouldWithTheCachedOnesReadTogether(String setup) throws IOException {
        start(setup);
        List<FileId> fids = mixed();
        assertRight(fids, readMany(source, fids)); // cold: every location a miss, each read alone
        long batched = reader.counters().batched();
        long viewsBefore = side.ucx.metrics().laneViews().sum();
        List<Outcome> warm = readMany(source, fids);
        assertRight(fids, warm);
        assertTrue(reader.counters().batched() - batched >= 40,
                "the needles whose locations were cached were read together: "
                        + (reader.counters().batched() - batched));
        if (setup.endsWith(" copies")) {
            // More than the lane's budget of in-call completions: a batch's views complete as one.
            long viewed = side.ucx.metrics().laneViews().sum() - viewsBefore;
            assertTrue(viewed >= 40, "every cached needle of the batch read where it lies: " + viewed);
        }
        for (int i = 0; i < fids.size(); i++) {
            Outcome alone = readOne(fids.get(i));
            assertArrayEquals(alone.bytes(), warm.get(i).bytes(), fids.get(i).toString());
            assertEquals(alone.failure(), warm.get(i).failure(), fids.get(i).toString());
        }
        assertEquals(ReadFailure.Kind.NOT_FOUND.name(), warm.get(9).failure(), "the deleted needle");
        until("every read buffer went back", () -> side.pool.inUse() == 0);
        // From the agent's UCX copies the records were checked where they lie; file mappings are never mapped here.
        long views = side.ucx.metrics().laneViews().sum();
        assertEquals(setup.endsWith(" copies"), views > 0, views + " views");
    }

    @ParameterizedTest
    @ValueSource(strings = {"sm,tcp,self", "tcp", "sm,tcp,self copies"})
    void lentNeedlesAreTheirBytesWhileLentAndFailEveryUseAfter(String setup) throws IOException {
        start(setup);
        NeedleClient client = NeedleClient.overSource(side.vertx, source, MAX_NEEDLE);
        List<FileId> fids = mixed();
        List<String> asked = fids.stream().map(FileId::toString).toList();
        assertRight(fids, readMany(source, fids)); // the locations cached: most needles read as one batch
        List<Outcome> got = new ArrayList<>();
        List<Buffer> kept = new ArrayList<>();
        int count = onContext(() -> client.readMany(asked, r -> {
            got.add(r.succeeded() ? new Outcome(r.needle().body().getBytes(), null)
                    : new Outcome(null, r.failure().kind().name()));
            if (r.succeeded()) {
                kept.add(r.needle().body());
            }
        }));
        assertEquals(fids.size(), count);
        assertRight(fids, got);
        int takenBack = 0;
        for (Buffer body : kept) {
            try {
                byte[] after = body.getBytes();
                // Only a needle in several read buffers is lent as a copy of its own.
                assertTrue(after.length > POOL.largeBufferBytes(), "a lent body outlived its call");
            } catch (IllegalReferenceCountException e) {
                takenBack++;
            }
        }
        assertTrue(takenBack >= 40, "the lent bodies were taken back: " + takenBack);
        until("every read buffer went back", () -> side.pool.inUse() == 0);
    }

    @Test
    void whatTheCallerThrowsFailsTheLendingCallAndReleasesTheRest() throws IOException {
        start("sm,tcp,self");
        NeedleClient client = NeedleClient.overSource(side.vertx, source, MAX_NEEDLE);
        List<String> asked = truth.keySet().stream().map(FileId::toString).toList();
        assertRight(List.copyOf(truth.keySet()), readMany(source, List.copyOf(truth.keySet())));
        // An Error too fails the call: it is not left hanging.
        for (Throwable thrown : List.of(new IllegalStateException("the caller gives up"),
                new AssertionError("a check failed"))) {
            List<String> handed = new ArrayList<>();
            Throwable failure = onContext(() -> client.readMany(asked, r -> {
                handed.add(r.fid());
                if (handed.size() == 3 && thrown instanceof Error error) {
                    throw error;
                }
                if (handed.size() == 3) {
                    throw (RuntimeException) thrown;
                }
            }).transform(ar -> Future.succeededFuture(ar.cause())));
            assertSame(thrown, failure);
            assertEquals(asked.subList(0, 3), handed, "nothing handed on after the throw");
            until("every read buffer went back", () -> side.pool.inUse() == 0);
        }
    }

    @Test
    void aBatchPastTheEventLoopsBudgetStillReadsWhereItLies() throws IOException {
        start("sm,tcp,self copies");
        List<FileId> fids = new ArrayList<>(truth.keySet()).subList(0, 40); // each fits one buffer
        assertRight(fids, readMany(source, fids)); // cold: the locations are found, then cached
        assertRight(fids, readMany(source, fids));
        long views = side.ucx.metrics().laneViews().sum();
        long batched = reader.counters().batched();
        int singles = 64;
        List<Outcome> got = onContext(() -> {
            // Reads completing inside their call use up the event loop's budget for this pass.
            List<Future<NeedleContent>> first = new ArrayList<>();
            for (int i = 0; i < singles; i++) {
                first.add(source.readSlice(fids.get(i % fids.size()), null, 0, -1, MAX_NEEDLE));
            }
            List<Future<NeedleContent>> reads = source.readMany(fids, MAX_NEEDLE);
            assertTrue(reads.stream().noneMatch(Future::isComplete), "handed over by the next polling task");
            return Future.join(first).transform(ar -> {
                first.forEach(r -> assertNull(Outcome.of(r).failure()));
                return Future.join(reads);
            }).transform(ar -> {
                List<Outcome> out = new ArrayList<>();
                reads.forEach(r -> out.add(Outcome.of(r)));
                return Future.succeededFuture(out);
            });
        });
        assertRight(fids, got);
        assertEquals(fids.size(), reader.counters().batched() - batched, "the needles were read as one batch");
        long viewed = side.ucx.metrics().laneViews().sum() - views;
        assertTrue(viewed >= singles + fids.size(), "the batch read them where they lie, no get: " + viewed);
        until("every read buffer went back", () -> side.pool.inUse() == 0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"sm,tcp,self"})
    void theBatchTakesOneSlotPerNeedleAndThoseBeyondTheBoundAreRefused(String tls) throws IOException {
        start(tls);
        List<FileId> good = new ArrayList<>(truth.keySet()).subList(0, 8);
        readMany(source, good); // the locations cached
        Admission admission = new Admission(8);
        NeedleSource admitted = new AdmittedSource(side.vertx, source, admission);
        assertRight(good, readMany(admitted, good));
        assertEquals(0, admission.inFlight(), "each slot returned with its needle's answer");
        Admission three = new Admission(8);
        for (int i = 0; i < 5; i++) {
            assertTrue(three.tryAcquire()); // five slots held elsewhere
        }
        List<Outcome> got = readMany(new AdmittedSource(side.vertx, source, three), good);
        assertRight(good.subList(0, 3), got.subList(0, 3));
        for (Outcome o : got.subList(3, 8)) {
            assertEquals(ReadFailure.Kind.UNAVAILABLE.name(), o.failure(), "beyond the bound: refused, as one read");
        }
        assertEquals(5, three.inFlight(), "the batch's slots all returned");
        until("every read buffer went back", () -> side.pool.inUse() == 0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"sm,tcp,self", "tcp"})
    void aCancelledCallGivesEveryBufferBack(String tls) throws IOException {
        start(tls);
        List<FileId> fids = mixed();
        readMany(source, fids);
        onContext(() -> {
            OrderedReads reads = new OrderedReads(fids.size(), 16, PlainRange.of(source, MAX_NEEDLE, fids::get));
            reads.start();
            reads.cancel();
            return Future.succeededFuture();
        });
        until("every read buffer went back", () -> side.pool.inUse() == 0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"sm,tcp,self", "tcp"})
    void withTheAgentGoneTheBatchIsServedByTheFallbacks(String tls) throws Exception {
        start(tls);
        List<FileId> fids = mixed();
        readMany(source, fids); // the locations cached: the next batch would post its gets
        open.remove(agent);
        agent.close();
        List<Outcome> got = readMany(source, fids);
        for (int i = 0; i < fids.size(); i++) {
            byte[] expected = truth.get(fids.get(i));
            if (expected != null) {
                assertArrayEquals(expected, got.get(i).bytes(), fids.get(i) + ": " + got.get(i).failure());
            }
        }
        until("every read buffer went back", () -> side.pool.inUse() == 0);
    }

    /**
     * The agent stops answering (its owner thread held) with a batch's gets posted over TCP: past the agent's hedge
     * delay each needle is the single read's, hedged to the volume server within the batch's deadline; the batch's
     * buffers go back once its gets land. The agent does not tell its file (protocol 4), as across hosts, so its
     * thread answers the gets.
     */
    @ParameterizedTest
    @ValueSource(strings = {"tcp"})
    void aBatchWhoseGetsDoNotLandIsAnsweredByTheHedges(String tls) throws Exception {
        start(tls, a -> a.speakProtocolAtMost(4));
        List<FileId> good = new ArrayList<>(truth.keySet()).subList(0, 20);
        readMany(source, good); // the locations cached
        long batched = reader.counters().batched();
        List<Outcome> got;
        try (OwnerThreadHold hold = new OwnerThreadHold(agent.ucx)) {
            got = readMany(source, good);
            // Each needle holds two buffers: the batch's get and the single read's RDMA get, both waiting.
            assertEquals(2 * good.size(), side.pool.inUse(), "the stalled gets keep their buffers");
        }
        assertRight(good, got);
        assertEquals(batched, reader.counters().batched(), "no needle was served by the stalled gets");
        until("every read buffer went back once the gets landed", () -> side.pool.inUse() == 0);
    }
}
