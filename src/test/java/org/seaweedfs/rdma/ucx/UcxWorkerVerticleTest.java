package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Real UCX over loopback: a "server" and a "client" worker, each in its own Vert.x instance. */
@ExtendWith(VertxExtension.class)
class UcxWorkerVerticleTest {

    private static final long TIMEOUT_S = 20;

    private final List<Vertx> vertxes = new ArrayList<>();
    private Vertx serverVertx;
    private Vertx clientVertx;
    private UcxWorkerVerticle server;
    private UcxWorkerVerticle client;
    private String serverDeployment;
    private UcxListener listener;
    private final AtomicReference<UcxChannel> accepted = new AtomicReference<>();

    @TempDir
    Path tmp;

    private void startPair(UcxSettings settings) throws Exception {
        serverVertx = Vertx.vertx();
        clientVertx = Vertx.vertx();
        vertxes.add(serverVertx);
        vertxes.add(clientVertx);
        server = new UcxWorkerVerticle(settings);
        client = new UcxWorkerVerticle(settings);
        serverDeployment = await(serverVertx.deployVerticle(server));
        await(clientVertx.deployVerticle(client));
        listener = await(server.listen("127.0.0.1", 0, accepted::set));
        assertTrue(listener.port() > 0, "an ephemeral port was bound");
    }

    private static UcxSettings quiet(UcxSettings s) {
        return s.withProbeTransports(false);
    }

    /** Client first: without peer error handling UCX treats a vanished peer as fatal. */
    @AfterEach
    void closeAll() throws Exception {
        for (int i = vertxes.size() - 1; i >= 0; i--) {
            await(vertxes.get(i).close()); // undeploys the verticles: must not hang
        }
    }

    @Test
    void framesBothWaysSmallAndLargeOnTheCallersContext(VertxTestContext test) throws Exception {
        startPair(quiet(UcxSettings.defaults()));
        Buffer small = Buffer.buffer("hello agent");
        Buffer large = randomBuffer(4 << 20, 7);
        Context clientContext = clientVertx.getOrCreateContext();
        UcxChannel channel = onContext(clientContext, () -> client.connect("127.0.0.1", listener.port()));
        assertTrue(channel.isOpen());
        UcxChannel serverSide = waitFor(accepted::get);
        assertTrue(serverSide.isAccepted());

        // The server echoes every frame back on the channel it arrived on.
        Context serverContext = serverVertx.getOrCreateContext();
        serverContext.runOnContext(v -> serverSide.frameHandler(frame -> {
            test.verify(() -> assertSame(serverContext, Vertx.currentContext()));
            serverSide.send(frame);
        }));

        List<Buffer> echoed = new ArrayList<>();
        var checkpoint = test.checkpoint();
        clientContext.runOnContext(v -> {
            channel.frameHandler(frame -> {
                test.verify(() -> assertSame(clientContext, Vertx.currentContext()));
                echoed.add(frame);
                if (echoed.size() == 2) {
                    test.verify(() -> {
                        assertEquals(small, echoed.get(0));
                        assertEquals(large, echoed.get(1), "4 MiB frame (rendezvous) came back intact");
                    });
                    checkpoint.flag();
                }
            });
            channel.send(small).onComplete(test.succeeding(x -> test.verify(() ->
                    assertSame(clientContext, Vertx.currentContext()))));
            channel.send(large);
        });
        assertTrue(test.awaitCompletion(TIMEOUT_S, TimeUnit.SECONDS));
        if (test.failed()) {
            throw new AssertionError(test.causeOfFailure());
        }
        assertTrue(client.metrics().framesSent().sum() >= 2);
        assertTrue(server.metrics().framesReceived().sum() >= 2);
    }

    /**
     * TLS forced to TCP; to shared memory (UCX 1.13 needs tcp beside it for the client/server wire-up, and drops
     * shared memory under peer error handling unless UCX_POSIX/SYSV_ERROR_HANDLING=y are in the environment, so that
     * case runs without it); and the default.
     */
    @ParameterizedTest
    @CsvSource({"tcp,true", "'sm,tcp',false", "'sm,tcp,self',true"})
    void getsOfARegisteredMappedFileMatchTheFile(String tls, boolean peerErrorHandling) throws Exception {
        startPair(quiet(UcxSettings.defaults().withTls(tls).withPeerErrorHandling(peerErrorHandling)));
        byte[] content = randomBytes(3 << 20, 11);
        UcxMemoryRegion remote = await(server.register(mapReadOnly("volume.dat", content)));
        assertEquals(content.length, remote.length());

        ByteBuffer local = ByteBuffer.allocateDirect(1 << 20);
        UcxMemoryRegion localRegion = await(client.register(local));
        Context clientContext = clientVertx.getOrCreateContext();
        UcxChannel channel = onContext(clientContext, () -> client.connect("127.0.0.1", listener.port()));
        UcxRemoteKey key = onContext(clientContext, () -> channel.unpackRemoteKey(remote.packedRemoteKey()));
        assertSame(key, onContext(clientContext, () -> channel.unpackRemoteKey(remote.packedRemoteKey())),
                "keys are cached per channel by content");

        Random random = new Random(42);
        for (int i = 0; i < 200; i++) {
            int length = 1 + random.nextInt(i % 10 == 0 ? local.capacity() : 8192);
            int offset = random.nextInt(content.length - length + 1);
            Thread[] completedOn = new Thread[1];
            onContext(clientContext, () -> channel.get(remote.address() + offset, key, localRegion.address(), length)
                    .onSuccess(v -> completedOn[0] = Thread.currentThread()));
            assertNotSame(client.ownerThread(), completedOn[0], "completion left the UCX owner thread");
            byte[] got = new byte[length];
            local.get(0, got);
            byte[] expected = new byte[length];
            System.arraycopy(content, offset, expected, 0, length);
            assertArrayEquals(expected, got, "bytes at offset " + offset + " length " + length);
        }
        assertEquals(200, client.metrics().gets().sum());
        await(server.deregister(remote));
        assertFalse(remote.isRegistered());
    }

    /** Writes {@code content} to a file and maps it read-only, as the agent maps a volume. */
    private MappedByteBuffer mapReadOnly(String name, byte[] content) throws Exception {
        Path file = tmp.resolve(name);
        Files.write(file, content);
        try (FileChannel fc = FileChannel.open(file, StandardOpenOption.READ)) {
            return fc.map(FileChannel.MapMode.READ_ONLY, 0, content.length);
        }
    }

    /** A client channel with the key of a registered server buffer and a registered local buffer of the same size. */
    private record GetSetup(Context context, UcxChannel channel, UcxRemoteKey key, UcxMemoryRegion remote,
                            UcxMemoryRegion local) {
    }

    private GetSetup connectForGets(int size) throws Exception {
        UcxMemoryRegion remote = await(server.register(ByteBuffer.allocateDirect(size)));
        UcxMemoryRegion local = await(client.register(ByteBuffer.allocateDirect(size)));
        Context clientContext = clientVertx.getOrCreateContext();
        UcxChannel channel = onContext(clientContext, () -> client.connect("127.0.0.1", listener.port()));
        UcxRemoteKey key = onContext(clientContext, () -> channel.unpackRemoteKey(remote.packedRemoteKey()));
        return new GetSetup(clientContext, channel, key, remote, local);
    }

    @Test
    void stoppingThePeerFailsPendingAndNewGetsFast() throws Exception {
        startPair(quiet(UcxSettings.defaults()));
        GetSetup setup = connectForGets(1 << 20);
        Context clientContext = setup.context;
        UcxChannel channel = setup.channel;
        UcxRemoteKey key = setup.key;
        UcxMemoryRegion remote = setup.remote;
        UcxMemoryRegion localRegion = setup.local;
        CompletableFuture<Throwable> closed = new CompletableFuture<>();
        clientContext.runOnContext(v -> channel.closeHandler(closed::complete));

        // Keep gets in flight while the server goes away.
        List<Future<Void>> inFlight = new ArrayList<>();
        CompletableFuture<Void> issued = new CompletableFuture<>();
        clientContext.runOnContext(v -> {
            for (int i = 0; i < 64; i++) {
                inFlight.add(channel.get(remote.address(), key, localRegion.address(), 1 << 20));
            }
            issued.complete(null);
        });
        issued.get(TIMEOUT_S, TimeUnit.SECONDS);
        await(serverVertx.undeploy(serverDeployment));

        Throwable cause = closed.get(TIMEOUT_S, TimeUnit.SECONDS);
        assertInstanceOf(UcxTransportException.class, cause, "the channel closed because the peer went away");
        assertFalse(channel.isOpen());
        for (Future<Void> f : inFlight) {
            try {
                await(f);
            } catch (ExecutionException e) {
                assertInstanceOf(UcxTransportException.class, e.getCause());
                assertTrue(((UcxTransportException) e.getCause()).retriable());
            }
        }
        assertEquals(0, outstanding(client), "failed gets no longer count as in flight (the loop may sleep)");
        ExecutionException later = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> await(channel.get(remote.address(), key, localRegion.address(), 64)));
        assertInstanceOf(UcxTransportException.class, later.getCause());
        assertTrue(later.getCause().getMessage().contains("127.0.0.1"), later.getCause().getMessage());
        // A stopped server refuses new connections cleanly.
        ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> await(client.connect("127.0.0.1", listener.port())));
        assertInstanceOf(UcxTransportException.class, refused.getCause());
    }

    @Test
    void closingAChannelTellsBothSides() throws Exception {
        startPair(quiet(UcxSettings.defaults()));
        UcxChannel channel = await(client.connect("127.0.0.1", listener.port()));
        UcxChannel serverSide = waitFor(accepted::get);
        CompletableFuture<Throwable> serverClosed = new CompletableFuture<>();
        serverSide.closeHandler(serverClosed::complete);
        await(channel.close());
        assertFalse(channel.isOpen());
        assertInstanceOf(UcxTransportException.class, serverClosed.get(TIMEOUT_S, TimeUnit.SECONDS));
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> await(channel.send(Buffer.buffer("late"))));
        assertInstanceOf(UcxTransportException.class, e.getCause());
        await(listener.close());
        assertFalse(listener.isOpen());
    }

    /** Shared memory (without error handling, see above) keeps this fast; gets that complete at once are covered. */
    @Test
    void heapStaysFlatOverAMillionGets() throws Exception {
        startPair(quiet(UcxSettings.defaults().withTls("sm,tcp").withPeerErrorHandling(false)));
        GetSetup setup = connectForGets(1 << 16);
        runGets(setup, 100_000);
        long before = usedHeapAfterGc();
        runGets(setup, 1_000_000);
        long after = usedHeapAfterGc();
        assertEquals(0, outstanding(client), "completed gets no longer count as in flight (the loop may sleep)");
        assertTrue(after - before < 48L << 20, "heap grew by " + ((after - before) >> 20) + " MiB over 1M gets");
        assertTrue(client.metrics().gets().sum() >= 1_100_000);
    }

    /**
     * Keys are held per unpack and closed after the last release, never under a get in flight; the cache is bounded.
     * Here every registration packs to the same bytes (no memory domain needs a key on sm/tcp), so distinct cache
     * entries are made by appending bytes UCX does not read (a packed key carries no length).
     */
    @Test
    void remoteKeysAreReleasedAndBounded() throws Exception {
        startPair(quiet(UcxSettings.defaults().withMaxRemoteKeys(2)));
        GetSetup setup = connectForGets(1 << 20);
        Context ctx = setup.context;
        UcxChannel channel = setup.channel;
        byte[] packed = setup.remote.packedRemoteKey();
        byte[] packedB = java.util.Arrays.copyOf(packed, packed.length + 1);
        byte[] packedC = java.util.Arrays.copyOf(packed, packed.length + 2);
        UcxRemoteKey a = setup.key;
        assertSame(a, onContext(ctx, () -> channel.unpackRemoteKey(packed)), "a second hold of the same bytes");
        UcxRemoteKey kb = onContext(ctx, () -> channel.unpackRemoteKey(packedB));
        assertNotSame(a, kb);
        assertEquals(2, onContext(ctx, channel::remoteKeyCount));

        ExecutionException full = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> onContext(ctx, () -> channel.unpackRemoteKey(packedC)));
        assertTrue(full.getCause().getMessage().contains("ucx.maxRemoteKeys"), full.getCause().getMessage());

        onContext(ctx, () -> channel.releaseRemoteKey(a));
        assertTrue(a.isValid(), "one holder left");
        // Gets in flight when the last hold goes must complete: the native key outlives them.
        CompletableFuture<List<Future<Void>>> issued = new CompletableFuture<>();
        ctx.runOnContext(v -> {
            List<Future<Void>> gets = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                gets.add(channel.get(setup.remote.address(), a, setup.local.address(), 1 << 20));
            }
            channel.releaseRemoteKey(a);
            issued.complete(gets);
        });
        for (Future<Void> get : issued.get(TIMEOUT_S, TimeUnit.SECONDS)) {
            await(get);
        }
        assertFalse(a.isValid());
        assertEquals(1, onContext(ctx, channel::remoteKeyCount), "the released key left the cache");
        ExecutionException late = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> onContext(ctx, () -> channel.get(setup.remote.address(), a, setup.local.address(), 64)));
        assertTrue(late.getCause().getMessage().contains("remote key is closed"), late.getCause().getMessage());

        UcxRemoteKey kc = onContext(ctx, () -> channel.unpackRemoteKey(packedC));
        onContext(ctx, () -> channel.get(setup.remote.address(), kc, setup.local.address(), 4096));
        assertThrows(ExecutionException.class, () -> onContext(ctx, () -> channel.unpackRemoteKey(packed)),
                "full again: b and c are held");
        onContext(ctx, () -> channel.releaseRemoteKey(kb));
        onContext(ctx, () -> channel.releaseRemoteKey(kb)); // one release too many: ignored
        assertTrue(kc.isValid());
        UcxRemoteKey fresh = onContext(ctx, () -> channel.unpackRemoteKey(packed));
        assertNotSame(a, fresh, "a fully released key is unpacked afresh");
        onContext(ctx, () -> channel.get(setup.remote.address(), fresh, setup.local.address(), 4096));
        assertEquals(2, onContext(ctx, channel::remoteKeyCount));
    }

    /** The registration flag for InfiniBand's read-only mappings: derived from the transports, harmless here. */
    @Test
    void onDemandPagingFollowsTheTransportsAndRegistrationStillServesGets() throws Exception {
        assertFalse(UcxSettings.defaults().onDemandPaging(), "sm,tcp,self has no RDMA transport");
        assertTrue(UcxSettings.defaults().withTls("rc,sm,self").onDemandPaging());
        assertTrue(UcxSettings.defaults().withTls("all").onDemandPaging());
        assertTrue(UcxSettings.defaults().withTls("^tcp").onDemandPaging());
        assertTrue(UcxSettings.defaults().withTls("ud_x,tcp").onDemandPaging());
        assertFalse(UcxSettings.defaults().withTls("tcp,posix").onDemandPaging());
        assertFalse(UcxSettings.defaults().withTls("rc").withOnDemandPaging(false).onDemandPaging());
        assertTrue(UcxSettings.fromJson(new io.vertx.core.json.JsonObject().put("tls", "dc,self")).onDemandPaging());
        assertFalse(UcxSettings.fromJson(new io.vertx.core.json.JsonObject().put("tls", "dc,self")
                .put("onDemandPaging", false)).onDemandPaging());
        assertEquals(10, UcxSettings.fromJson(new io.vertx.core.json.JsonObject().put("maxRemoteKeys", 10)).maxRemoteKeys());

        startPair(quiet(UcxSettings.defaults().withOnDemandPaging(true)));
        byte[] content = randomBytes(64 << 10, 3);
        UcxMemoryRegion remote = await(server.register(mapReadOnly("odp.dat", content)));
        ByteBuffer local = ByteBuffer.allocateDirect(content.length);
        UcxMemoryRegion localRegion = await(client.register(local));
        Context ctx = clientVertx.getOrCreateContext();
        UcxChannel channel = onContext(ctx, () -> client.connect("127.0.0.1", listener.port()));
        UcxRemoteKey key = onContext(ctx, () -> channel.unpackRemoteKey(remote.packedRemoteKey()));
        onContext(ctx, () -> channel.get(remote.address(), key, localRegion.address(), content.length));
        byte[] got = new byte[content.length];
        local.get(0, got);
        assertArrayEquals(content, got);
    }

    @Test
    void settingsAreValidatedWithTheKeyName() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> UcxSettings.fromJson(new io.vertx.core.json.JsonObject().put("tls", "sm;rm -rf")));
        assertTrue(e.getMessage().contains("ucx.tls"), e.getMessage());
        e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> UcxSettings.fromJson(new io.vertx.core.json.JsonObject().put("spinIterations", -1)));
        assertTrue(e.getMessage().contains("ucx.spinIterations"), e.getMessage());
        e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> UcxSettings.fromJson(new io.vertx.core.json.JsonObject().put("tsl", "tcp")));
        assertTrue(e.getMessage().contains("ucx.tsl"), e.getMessage());
        e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> UcxSettings.fromJson(new io.vertx.core.json.JsonObject()
                        .put("config", new io.vertx.core.json.JsonObject().put("UCX_TLS", "tcp"))));
        assertTrue(e.getMessage().contains("ucx.config"), e.getMessage());
        UcxSettings s = UcxSettings.fromJson(new io.vertx.core.json.JsonObject().put("tls", "tcp").put("tcpTxSegSize", "32768")
                .put("config", new io.vertx.core.json.JsonObject().put("RNDV_THRESH", "64K")));
        assertEquals("tcp", s.contextConfig().get("TLS"));
        assertEquals("64K", s.contextConfig().get("RNDV_THRESH"));
        assertEquals("y", s.requiredEnvironment().get("UCX_POSIX_ERROR_HANDLING"));
        assertEquals("32768", s.requiredEnvironment().get("UCX_TCP_TX_SEG_SIZE"));
        List<String> gaps = UcxConfigReport.environmentGaps(s.requiredEnvironment(),
                java.util.Map.of("UCX_POSIX_ERROR_HANDLING", "y", "UCX_ERROR_SIGNALS", ""));
        assertEquals(2, gaps.size(), gaps.toString()); // SYSV_ERROR_HANDLING and TCP_TX_SEG_SIZE
        assertTrue(gaps.get(0).contains("UCX_SYSV_ERROR_HANDLING=y"), gaps.get(0));
    }

    @Test
    void lanesReportReadsUcxInfoOutput() {
        String out = "#                 lane[0]:  3:sysv/memory.0 md[2]           -> md[2]/sysv/sysdev[255] am am_bw#0 keepalive\n"
                + "#                 lane[1]:  4:posix/memory.0 md[3]          -> md[3]/posix/sysdev[255]\n";
        assertEquals("sysv/memory.0 (am am_bw#0 keepalive), posix/memory.0", UcxConfigReport.describe(out));
        assertTrue(UcxConfigReport.describe("[1] [vm:1] ucp_context.c:1 UCX  ERROR no usable transports\n")
                .contains("no usable transports"));
    }

    /** Issues {@code count} 64-byte gets with a bounded window, from the given context. */
    private static void runGets(GetSetup setup, int count) throws Exception {
        UcxChannel channel = setup.channel;
        UcxRemoteKey key = setup.key;
        UcxMemoryRegion remote = setup.remote;
        UcxMemoryRegion local = setup.local;
        int window = 256;
        CompletableFuture<Void> done = new CompletableFuture<>();
        AtomicInteger issued = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        Runnable[] issue = new Runnable[1];
        issue[0] = () -> {
            int i = issued.getAndIncrement();
            if (i >= count) {
                return;
            }
            long slot = (i % 64) * 64L;
            channel.get(remote.address() + slot, key, local.address() + slot, 64).onComplete(ar -> {
                if (ar.failed()) {
                    done.completeExceptionally(ar.cause());
                    return;
                }
                if (completed.incrementAndGet() == count) {
                    done.complete(null);
                } else {
                    issue[0].run();
                }
            });
        };
        setup.context.runOnContext(v -> {
            for (int i = 0; i < window; i++) {
                issue[0].run();
            }
        });
        done.get(60, TimeUnit.SECONDS);
    }

    /** Operations the worker's loop counts as in flight (it spins only while there are some). */
    private static int outstanding(UcxWorkerVerticle worker) throws Exception {
        CompletableFuture<Integer> n = new CompletableFuture<>();
        worker.loop().execute(LoopTask.of(() -> n.complete(worker.loop().outstanding())));
        return n.get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        Runtime rt = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
            used = Math.min(used, rt.totalMemory() - rt.freeMemory());
        }
        return used;
    }

    private static <T> T onContext(Context context, Supplier<Future<T>> action) throws Exception {
        Promise<T> promise = Promise.promise();
        context.runOnContext(v -> action.get().onComplete(ar -> {
            if (Vertx.currentContext() != context) {
                promise.tryFail(new AssertionError("completed on " + Vertx.currentContext() + ", not the caller's context"));
            } else {
                promise.handle(ar);
            }
        }));
        return await(promise.future());
    }

    private static <T> T await(Future<T> future) throws Exception {
        return future.toCompletionStage().toCompletableFuture().get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    private static <T> T waitFor(Supplier<T> value) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        T v;
        while ((v = value.get()) == null) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting");
            }
            Thread.sleep(5);
        }
        return v;
    }

    private static byte[] randomBytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static Buffer randomBuffer(int n, long seed) {
        return Buffer.buffer(randomBytes(n, seed));
    }
}
