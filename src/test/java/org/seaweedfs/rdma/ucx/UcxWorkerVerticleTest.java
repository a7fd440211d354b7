package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.ValueSource;
import org.seaweedfs.rdma.polling.PollingPolicy;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.seaweedfs.rdma.config.ConfigException;
import org.seaweedfs.rdma.testing.UcxSetup;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.TIMEOUT_S;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.await;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.mapReadOnly;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.onContext;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.outstanding;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.randomBuffer;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.randomBytes;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.runGets;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.usedHeapAfterGc;

/** Real UCX over loopback: a "server" and a "client" worker, each in its own Vert.x instance. */
@ExtendWith(VertxExtension.class)
class UcxWorkerVerticleTest {

    private UcxPair pair;
    private Vertx serverVertx;
    private Vertx clientVertx;
    private UcxWorkerVerticle server;
    private UcxWorkerVerticle client;
    private String serverDeployment;
    private UcxListener listener;
    private CompletableFuture<UcxChannel> accepted;

    @TempDir
    Path tmp;

    private void startPair(UcxSettings settings) throws Exception {
        pair = new UcxPair(settings);
        serverVertx = pair.serverVertx;
        clientVertx = pair.clientVertx;
        server = pair.server;
        client = pair.client;
        serverDeployment = pair.serverDeployment;
        listener = pair.listener;
        accepted = pair.accepted;
    }

    @AfterEach
    void closeAll() throws Exception {
        if (pair != null) {
            pair.close();
        }
    }

    @Test
    void framesBothWaysSmallAndLargeOnTheCallersContext(VertxTestContext test) throws Exception {
        startPair(UcxSetup.defaults());
        Buffer small = Buffer.buffer("hello agent");
        Buffer large = randomBuffer(4 << 20, 7);
        Context clientContext = clientVertx.getOrCreateContext();
        UcxChannel channel = onContext(clientContext, () -> client.connect("127.0.0.1", listener.port()));
        assertTrue(channel.isOpen());
        UcxChannel serverSide = accepted.get(TIMEOUT_S, TimeUnit.SECONDS);
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
     * TLS forced to TCP; to shared memory (UCX 1.13 needs tcp beside it for the client/server wire-up; this case runs
     * without peer error handling); and the default.
     */
    @ParameterizedTest
    @CsvSource({"tcp,true", "'sm,tcp',false", "'sm,tcp,self',true"})
    void getsOfARegisteredMappedFileMatchTheFile(String tls, boolean peerErrorHandling) throws Exception {
        startPair(UcxSetup.ucx("tls: '" + tls + "'", "errorHandling: " + (peerErrorHandling ? "peer" : "none"))
                .settings());
        byte[] content = randomBytes(3 << 20, 11);
        UcxMemoryRegion remote = await(server.register(mapReadOnly(tmp, "volume.dat", content)));
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

    @Test
    void stoppingThePeerFailsPendingAndNewGetsFast() throws Exception {
        startPair(UcxSetup.defaults());
        UcxPair.GetSetup setup = pair.connectForGets(1 << 20);
        Context clientContext = setup.context();
        UcxChannel channel = setup.channel();
        UcxRemoteKey key = setup.key();
        UcxMemoryRegion remote = setup.remote();
        UcxMemoryRegion localRegion = setup.local();
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

    /**
     * Over tcp every get of registered memory is emulated: the server's owner thread answers each one, polling for the
     * idle-poll time between gets and sleeping between the two batches; with 0 it sleeps after every get.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, PollingPolicy.DEFAULT_MICROS, 1_000})
    void anOwnerThreadServesEmulatedGetsWhateverItsIdlePollTime(int idlePollMicros) throws Exception {
        startPair(UcxSetup.tls("tcp").idlePollMicros(idlePollMicros).settings());
        assertEquals(idlePollMicros, server.settings().idlePollMicros());
        UcxPair.GetSetup setup = pair.onWorkerContext(pair.connectForGets(1 << 16));
        runGets(setup, 2_000);
        runGets(setup, 2_000);
    }

    @Test
    void noRendezvousLanesUnlessTheConfigurationAsksForThem() {
        assertEquals("0", UcxSetup.defaults().contextConfig().get("MAX_RNDV_LANES"),
                "rendezvous lanes give same-host endpoints TCP lanes that every progress call polls");
    }

    @Test
    void closingAChannelTellsBothSides() throws Exception {
        startPair(UcxSetup.defaults());
        UcxChannel channel = await(client.connect("127.0.0.1", listener.port()));
        UcxChannel serverSide = accepted.get(TIMEOUT_S, TimeUnit.SECONDS);
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

    /**
     * The owner-thread path (gets from a worker context; {@code EventLoopLaneTest} has the lane one). Shared memory
     * (without error handling, see above) keeps this fast; gets that complete at once are covered.
     */
    @Test
    void heapStaysFlatOverAMillionOwnerThreadGets() throws Exception {
        startPair(UcxSetup.ucx("tls: 'sm,tcp'", "errorHandling: none").settings());
        UcxPair.GetSetup setup = pair.onWorkerContext(pair.connectForGets(1 << 16));
        runGets(setup, 100_000);
        long before = usedHeapAfterGc();
        runGets(setup, 1_000_000);
        long after = usedHeapAfterGc();
        assertEquals(0, outstanding(client), "completed gets no longer count as in flight (the loop may sleep)");
        assertTrue(after - before < 48L << 20, "heap grew by " + ((after - before) >> 20) + " MiB over 1M gets");
        assertTrue(client.metrics().gets().sum() >= 1_100_000);
        assertEquals(0, client.metrics().laneGets().sum(), "no lane serves a worker context");
    }

    /**
     * Keys are held per unpack and closed after the last release, never under a get in flight; the cache is bounded
     * by {@link UcxSettings#MAX_REMOTE_KEYS}. Here every registration packs to the same bytes (no memory domain needs
     * a key on sm/tcp), so distinct cache entries are made by appending bytes UCX does not read (a packed key carries
     * no length): keys a and b, then fillers up to the bound.
     */
    @Test
    void remoteKeysAreReleasedAndBounded() throws Exception {
        startPair(UcxSetup.defaults());
        UcxPair.GetSetup setup = pair.connectForGets(1 << 20);
        Context ctx = setup.context();
        UcxChannel channel = setup.channel();
        byte[] packed = setup.remote().packedRemoteKey();
        byte[] packedB = java.util.Arrays.copyOf(packed, packed.length + 1);
        byte[] packedC = java.util.Arrays.copyOf(packed, packed.length + 2);
        UcxRemoteKey a = setup.key();
        assertSame(a, onContext(ctx, () -> channel.unpackRemoteKey(packed)), "a second hold of the same bytes");
        UcxRemoteKey kb = onContext(ctx, () -> channel.unpackRemoteKey(packedB));
        assertNotSame(a, kb);
        assertEquals(2, onContext(ctx, channel::remoteKeyCount));
        int max = UcxSettings.MAX_REMOTE_KEYS;
        for (int from = 0; from < max - 2; from += 4096) {
            int first = from;
            int last = Math.min(max - 2, from + 4096);
            onContext(ctx, () -> Future.all(java.util.stream.IntStream.range(first, last)
                    .mapToObj(i -> channel.unpackRemoteKey(ByteBuffer.allocate(packed.length + 4).put(packed)
                            .putInt(i).array())).toList()));
        }
        assertEquals(max, onContext(ctx, channel::remoteKeyCount));

        ExecutionException full = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> onContext(ctx, () -> channel.unpackRemoteKey(packedC)));
        assertTrue(full.getCause().getMessage().contains("the most one connection may hold"),
                full.getCause().getMessage());

        onContext(ctx, () -> channel.releaseRemoteKey(a));
        assertTrue(a.isValid(), "one holder left");
        // Gets in flight when the last hold goes must complete: the native key outlives them.
        CompletableFuture<List<Future<Void>>> issued = new CompletableFuture<>();
        ctx.runOnContext(v -> {
            List<Future<Void>> gets = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                gets.add(channel.get(setup.remote().address(), a, setup.local().address(), 1 << 20));
            }
            gets.add(channel.releaseRemoteKey(a)); // last: completes once the owner thread took the release
            issued.complete(gets);
        });
        for (Future<Void> get : issued.get(TIMEOUT_S, TimeUnit.SECONDS)) {
            await(get);
        }
        assertFalse(a.isValid());
        assertEquals(max - 1, onContext(ctx, channel::remoteKeyCount), "the released key left the cache");
        ExecutionException late = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> onContext(ctx, () -> channel.get(setup.remote().address(), a, setup.local().address(), 64)));
        assertTrue(late.getCause().getMessage().contains("remote key is closed"), late.getCause().getMessage());

        UcxRemoteKey kc = onContext(ctx, () -> channel.unpackRemoteKey(packedC));
        onContext(ctx, () -> channel.get(setup.remote().address(), kc, setup.local().address(), 4096));
        assertThrows(ExecutionException.class, () -> onContext(ctx, () -> channel.unpackRemoteKey(packed)),
                "full again: b, c and the fillers are held");
        onContext(ctx, () -> channel.releaseRemoteKey(kb));
        onContext(ctx, () -> channel.releaseRemoteKey(kb)); // one release too many: ignored
        assertTrue(kc.isValid());
        UcxRemoteKey fresh = onContext(ctx, () -> channel.unpackRemoteKey(packed));
        assertNotSame(a, fresh, "a fully released key is unpacked afresh");
        onContext(ctx, () -> channel.get(setup.remote().address(), fresh, setup.local().address(), 4096));
        assertEquals(max, onContext(ctx, channel::remoteKeyCount));
    }

    /** The registration flag for InfiniBand's read-only mappings: derived from the transports, harmless here. */
    @Test
    void onDemandPagingFollowsTheTransportsAndRegistrationStillServesGets() throws Exception {
        assertFalse(UcxSetup.defaults().onDemandPaging(), "sm,tcp,self has no RDMA transport");
        assertTrue(UcxSetup.tls("rc,sm,self").settings().onDemandPaging());
        assertTrue(UcxSetup.tls("all").settings().onDemandPaging());
        assertTrue(UcxSetup.tls("^tcp").settings().onDemandPaging());
        assertTrue(UcxSetup.tls("ud_x,tcp").settings().onDemandPaging());
        assertFalse(UcxSetup.tls("tcp,posix").settings().onDemandPaging());
        assertFalse(UcxSetup.ucx("tls: rc", "onDemandPaging: false").settings().onDemandPaging());
        assertTrue(UcxSetup.tls("dc,self").settings().onDemandPaging());

        startPair(UcxSetup.ucx("onDemandPaging: true").settings());
        byte[] content = randomBytes(64 << 10, 3);
        UcxMemoryRegion remote = await(server.register(mapReadOnly(tmp, "odp.dat", content)));
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

    /**
     * Work handed to a worker while it starts (an agent opens its volumes while UCX starts) waits for it, and fails
     * with its start when UCX cannot start (here: no such network device), instead of waiting forever.
     */
    @Test
    void workHandedWhileTheWorkerStartsFailsWithItsStart() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            UcxWorkerVerticle ucx =
                    new UcxWorkerVerticle(UcxSetup.ucx("tls: [tcp]", "netDevices: [no_such_device0]").settings());
            Context context = vertx.getOrCreateContext();
            CompletableFuture<Future<UcxMemoryRegion>> handed = new CompletableFuture<>();
            context.runOnContext(v -> handed.complete(ucx.register(ByteBuffer.allocateDirect(4096))));
            Future<UcxMemoryRegion> registration = handed.get(TIMEOUT_S, TimeUnit.SECONDS);
            ExecutionException start = assertThrows(ExecutionException.class, () -> await(vertx.deployVerticle(ucx)));
            assertTrue(start.getCause().getMessage().contains("UCX worker could not start"), start.getMessage());
            ExecutionException failed = assertThrows(ExecutionException.class, () -> await(registration));
            assertTrue(failed.getCause().getMessage().contains("UCX worker could not start"), failed.getMessage());
        } finally {
            await(vertx.close());
        }
    }

    @Test
    void settingsAreValidatedWithTheKeyName() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> UcxSetup.tls("sm;rm -rf").settings());
        assertTrue(e.getMessage().contains("ucx.tls"), e.getMessage());
        ConfigException refused = assertThrows(ConfigException.class,
                () -> UcxSetup.DEFAULTS.idlePollMicros(-1).settings());
        assertTrue(refused.getMessage().contains("idlePollMicros"), refused.getMessage());
        UcxSettings s = UcxSetup.tls("tcp").settings();
        assertEquals("tcp", s.contextConfig().get("TLS"));
        assertEquals(Integer.toString(UcxSettings.TCP_SEG_SIZE), s.contextConfig().get("TX_SEG_SIZE"));
    }

    @Test
    void lanesReportReadsUcxInfoOutput() {
        String out =
                "#                 lane[0]:  3:sysv/memory.0 md[2]           -> md[2]/sysv/sysdev[255] am am_bw#0 "
                + "keepalive\n"
                + "#                 lane[1]:  4:posix/memory.0 md[3]          -> md[3]/posix/sysdev[255]\n";
        assertEquals("sysv/memory.0 (am am_bw#0 keepalive), posix/memory.0", UcxConfigReport.describe(out));
        assertTrue(UcxConfigReport.describe("[1] [vm:1] ucp_context.c:1 UCX  ERROR no usable transports\n")
                .contains("no usable transports"));
    }
}
