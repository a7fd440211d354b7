package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.polling.PollingPolicy;
import org.seaweedfs.rdma.LogCapture;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.seaweedfs.rdma.testing.UcxSetup;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
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
import static org.junit.jupiter.api.Assertions.fail;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.TIMEOUT_S;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.await;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.awaitCondition;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.mapReadOnly;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.onContext;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.randomBytes;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.runGets;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.usedHeapAfterGc;

/**
 * Gets issued on a Vert.x event loop run on that loop's own UCX worker (a lane), real UCX over loopback with peer
 * error handling (the context sets shared memory's error handling, so it stays on). The server region is either
 * UCX-allocated ("ucx": a one-sided shared-memory get) or a registered read-only file mapping ("file": emulated, served
 * by the server's owner thread).
 */
class EventLoopLaneTest {

    /** Completions a lane runs inside their issuing calls between two polling tasks. */
    private static final int SYNC_COMPLETIONS = new PollingPolicy(0).syncCompletions();

    private static final int REGION = 1 << 20;

    private final List<UcxPair> pairs = new ArrayList<>();

    @TempDir
    Path tmp;

    @AfterEach
    void closeAll() throws Exception {
        for (int i = pairs.size() - 1; i >= 0; i--) {
            pairs.get(i).close();
        }
    }

    private UcxPair pair(UcxSettings settings) throws Exception {
        UcxPair pair = new UcxPair(settings);
        pairs.add(pair);
        return pair;
    }

    /** A server region of {@link #REGION} random bytes of the given kind; {@code content} receives them. */
    private UcxMemoryRegion serverRegion(UcxPair pair, String kind, byte[] content) throws Exception {
        if (kind.equals("file")) {
            return await(pair.server.register(mapReadOnly(tmp, "volume.dat", content)));
        }
        UcxMemoryRegion region = await(pair.server.allocate(content.length));
        region.buffer().duplicate().clear().put(content);
        return region;
    }

    @ParameterizedTest
    @ValueSource(strings = {"ucx", "file"})
    void aGetOnAnEventLoopCompletesOnItsThreadWithoutTheOwnerThread(String kind) throws Exception {
        UcxPair pair = pair(UcxSetup.defaults());
        byte[] content = randomBytes(REGION, 5);
        UcxPair.GetSetup setup = pair.connectForGets(serverRegion(pair, kind, content), 64 << 10);
        Context context = setup.context();
        Thread eventLoop = threadOf(context);
        Random random = new Random(9);
        int completedInTheCall = 0;
        for (int i = 0; i < 50; i++) {
            int length = 1 + random.nextInt(64 << 10);
            int offset = random.nextInt(REGION - length + 1);
            CompletableFuture<Boolean> doneInCall = new CompletableFuture<>();
            Thread[] completedOn = new Thread[1];
            onContext(context, () -> {
                Future<Void> get = setup.channel().get(setup.remote().address() + offset, setup.key(),
                        setup.local().address(), length);
                doneInCall.complete(get.isComplete());
                return get.onSuccess(v -> completedOn[0] = Thread.currentThread());
            });
            assertSame(eventLoop, completedOn[0], "completed on the issuing event loop's thread");
            assertNotSame(pair.client.ownerThread(), completedOn[0]);
            completedInTheCall += doneInCall.get() ? 1 : 0;
            // Calls queued in one pass of the loop share the sync budget (pinned below): a timer, due after the lane's
            // polling task, lets that task restore the budget before the next call.
            onContext(context, () -> {
                Promise<Void> later = Promise.promise();
                context.owner().setTimer(1, id -> later.complete());
                return later.future();
            });
            byte[] got = new byte[length];
            setup.local().buffer().get(0, got);
            byte[] expected = new byte[length];
            System.arraycopy(content, offset, expected, 0, length);
            assertArrayEquals(expected, got, "bytes at offset " + offset + " length " + length);
        }
        assertEquals(50, pair.client.metrics().laneGets().sum(), "every get ran on the lane");
        assertEquals(50, pair.client.metrics().gets().sum());
        assertEquals(1, pair.client.metrics().lanes());
        assertEquals(1, pair.client.laneWorkers());
        if (kind.equals("ucx")) {
            // UCX memory of a same-host peer is mapped here: each get is one copy within the call.
            assertEquals(50, completedInTheCall, "gets completed within the call");
            assertEquals(50, pair.client.metrics().laneCopiedGets().sum(), "gets copied from the peer's memory");
        } else {
            assertEquals(0, pair.client.metrics().laneCopiedGets().sum(), "a file mapping is not mapped here");
        }
    }

    /**
     * A view of a same-host peer's UCX memory is its bytes where they lie (no get): it holds the lane's key copy open,
     * and the mapping with it, through the key's release and the channel's close, until the view is released (here
     * from a thread that is not the lane's). A file mapping is not mapped here: no view, the caller gets the bytes.
     */
    @ParameterizedTest
    @ValueSource(strings = {"ucx", "file"})
    void aViewUsesThePeersMemoryWhereItLiesAndHoldsItUntilReleased(String kind) throws Exception {
        UcxPair pair = pair(UcxSetup.defaults());
        byte[] content = randomBytes(REGION, 12);
        UcxPair.GetSetup setup = pair.connectForGets(serverRegion(pair, kind, content), 64);
        UcxChannel channel = setup.channel();
        int offset = 4096 + 17;
        int length = 100_000;
        PeerView view = onContext(setup.context(),
                () -> Future.succeededFuture(channel.view(setup.remote().address(), REGION, setup.key(),
                        setup.remote().address() + offset, length)));
        PeerView offLoop = channel.view(setup.remote().address(), REGION, setup.key(),
                setup.remote().address() + offset, length);
        PeerView beyond = onContext(setup.context(), () -> Future.succeededFuture(channel.view(setup.remote().address(),
                REGION, setup.key(), setup.remote().address() + REGION - 10, 64)));
        assertEquals(null, beyond, "no view past the key's region");
        assertEquals(null, offLoop, "no view off the verticle's event loops: no lane there");
        if (kind.equals("file")) {
            assertEquals(null, view, "a file mapping is not mapped here");
            assertEquals(0, pair.client.metrics().laneViews().sum());
            onContext(setup.context(),
                    () -> channel.get(setup.remote().address(), setup.key(), setup.local().address(), 64));
            byte[] got = new byte[64];
            setup.local().buffer().get(0, got);
            assertArrayEquals(Arrays.copyOf(content, 64), got, "the get still reads it");
            return;
        }
        byte[] expected = Arrays.copyOfRange(content, offset, offset + length);
        assertEquals(1, pair.client.metrics().laneViews().sum());
        assertEquals(0, pair.client.metrics().laneGets().sum(), "no get");
        assertEquals(1, pair.client.metrics().laneRemoteKeys());
        onContext(setup.context(), () -> channel.releaseRemoteKey(setup.key()));
        onContext(setup.context(), channel::close);
        awaitCondition(pair.clientVertx, () -> pair.client.metrics().lanes() == 0, "the lane closed");
        assertEquals(1, pair.client.metrics().laneRemoteKeys(), "the view holds the lane's key copy open");
        byte[] seen = new byte[length];
        view.bytes().get(seen);
        assertArrayEquals(expected, seen, "the peer's bytes, still mapped");
        view.release();
        view.release(); // idempotent
        awaitCondition(pair.clientVertx, () -> pair.client.metrics().laneRemoteKeys() == 0,
                "the key copy closed with its last view");
    }

    /**
     * A call's views of one region ({@link PeerViews}): the lane and key copy are found once, each view is the peer's
     * bytes where they lie, a range past the region has none, and neither has a use off the lane's loop nor one after
     * the key's release. A file mapping is not mapped here: no views at all.
     */
    @ParameterizedTest
    @ValueSource(strings = {"ucx", "file"})
    void aCallsViewsOfARegionAreItsBytesWhereTheyLie(String kind) throws Exception {
        UcxPair pair = pair(UcxSetup.defaults());
        byte[] content = randomBytes(REGION, 13);
        UcxPair.GetSetup setup = pair.connectForGets(serverRegion(pair, kind, content), 64);
        UcxChannel channel = setup.channel();
        long base = setup.remote().address();
        PeerViews views = onContext(setup.context(),
                () -> Future.succeededFuture(channel.views(base, REGION, setup.key())));
        assertEquals(null, channel.views(base, REGION, setup.key()), "no views off the verticle's event loops");
        if (kind.equals("file")) {
            assertEquals(null, views, "a file mapping is not mapped here");
            return;
        }
        assertEquals(setup.key(), views.key());
        List<PeerView> taken = onContext(setup.context(), () -> Future.succeededFuture(Arrays.asList(
                views.view(base + 100, 64), views.view(base + 70_000, 5000), views.view(base + REGION - 10, 64))));
        assertArrayEquals(Arrays.copyOfRange(content, 100, 164), bytesOf(taken.get(0)));
        assertArrayEquals(Arrays.copyOfRange(content, 70_000, 75_000), bytesOf(taken.get(1)));
        assertEquals(null, taken.get(2), "no view past the region");
        assertEquals(null, views.view(base + 100, 64), "no view off the lane's loop");
        assertEquals(2, pair.client.metrics().laneViews().sum());
        assertEquals(0, pair.client.metrics().laneGets().sum(), "no get");
        onContext(setup.context(), () -> channel.releaseRemoteKey(setup.key()));
        assertEquals(null, onContext(setup.context(), () -> Future.succeededFuture(views.view(base + 100, 64))),
                "no view after the key's release");
        taken.get(0).release();
        taken.get(1).release();
        awaitCondition(pair.clientVertx, () -> pair.client.metrics().laneRemoteKeys() == 0,
                "the key copy closed with its last view");
    }

    private static byte[] bytesOf(PeerView view) {
        byte[] bytes = new byte[view.bytes().remaining()];
        view.bytes().duplicate().get(bytes);
        return bytes;
    }

    /**
     * A batch of gets posted together on the lane (implicit, one flush; copies where the peer's memory is mapped here):
     * each lands its own bytes at its own place, the batch completes once on the issuing loop, and a batch with a
     * released key fails as a whole without posting.
     */
    @ParameterizedTest
    @ValueSource(strings = {"ucx", "file"})
    void aBatchOfGetsIsPostedTogetherAndCompletesOnceOnTheLane(String kind) throws Exception {
        UcxPair pair = pair(UcxSetup.defaults());
        byte[] content = randomBytes(REGION, 11);
        UcxPair.GetSetup setup = pair.connectForGets(serverRegion(pair, kind, content), 64 << 10);
        Context context = setup.context();
        Random random = new Random(12);
        int count = 24;
        int slot = (64 << 10) / count;
        int[] offsets = new int[count];
        int[] lengths = new int[count];
        GetBatch batch = new GetBatch(4); // grows as gets are added
        for (int i = 0; i < count; i++) {
            lengths[i] = 1 + random.nextInt(slot);
            offsets[i] = random.nextInt(REGION - lengths[i] + 1);
            batch.add(setup.remote().address() + offsets[i], setup.key(), setup.local().address() + (long) i * slot,
                    lengths[i]);
        }
        Thread[] completedOn = new Thread[1];
        onContext(context, () -> setup.channel().getAll(batch).onSuccess(v -> completedOn[0] = Thread.currentThread()));
        assertSame(threadOf(context), completedOn[0], "completed on the issuing event loop's thread");
        for (int i = 0; i < count; i++) {
            byte[] got = new byte[lengths[i]];
            setup.local().buffer().get(i * slot, got);
            byte[] expected = new byte[lengths[i]];
            System.arraycopy(content, offsets[i], expected, 0, lengths[i]);
            assertArrayEquals(expected, got, "get " + i);
        }
        assertEquals(count, pair.client.metrics().laneGets().sum(), "every get of the batch ran on the lane");
        if (kind.equals("ucx")) { // the peer's memory is mapped here: each get is one copy, nothing to flush
            assertEquals(count, pair.client.metrics().laneCopiedGets().sum(), "copied from the peer's memory");
            assertEquals(0, pair.client.metrics().laneImplicitGets());
        } else {
            assertEquals(count, pair.client.metrics().laneImplicitGets(), "posted implicit, completed by one flush");
        }
        onContext(context, () -> setup.channel().releaseRemoteKey(setup.key()));
        ExecutionException released = assertThrows(ExecutionException.class,
                () -> onContext(context, () -> setup.channel().getAll(batch)));
        assertTrue(released.getCause().getMessage().contains("remote key is closed"),
                released.getCause().getMessage());
        assertEquals(count, pair.client.metrics().laneGets().sum(), "nothing more was posted");
    }

    /**
     * Independent events queued on one loop (event-bus requests arriving at once): a budget of one-sided gets complete
     * inside their call, the others are issued implicit and complete with the polling task's flush, and each has the
     * right bytes.
     */
    @Test
    void independentEventsQueuedTogetherCompleteInsideTheirCallUpToTheBudget() throws Exception {
        UcxPair pair = pair(UcxSetup.defaults());
        byte[] content = randomBytes(REGION, 7);
        int events = 3 * SYNC_COMPLETIONS;
        UcxPair.GetSetup setup = pair.connectForGets(serverRegion(pair, "ucx", content), events * 4096);
        Context context = setup.context();
        long remote = setup.remote().address();
        onContext(context, () -> setup.channel().get(remote, setup.key(), setup.local().address(), 4096)); // wired up
        List<Boolean> doneInCall = queueGets(context, setup, events);
        long inCall = doneInCall.stream().filter(done -> done).count();
        assertTrue(inCall >= SYNC_COMPLETIONS, "gets completed inside their call, one event each: "
                + doneInCall);
        // Past the budget a get waits for the polling task: copied at once from the peer's memory mapped here (this
        // peer's), else issued implicit and flushed there.
        long copiedPastBudget = pair.client.metrics().laneCopiedGets().sum() - 1 - inCall;
        assertEquals(events - inCall, copiedPastBudget + pair.client.metrics().laneImplicitGets(),
                "the gets past the budget completed with the polling task");
        byte[] got = new byte[events * 4096];
        setup.local().buffer().get(0, got);
        assertArrayEquals(Arrays.copyOf(content, got.length), got);
    }

    /**
     * Queues {@code events} tasks on the context at once, each issuing one 4 KiB get into its own slot; returns, once
     * all have completed, whether each completed inside its call.
     */
    private static List<Boolean> queueGets(Context context, UcxPair.GetSetup setup, int events) throws Exception {
        long remote = setup.remote().address();
        List<Boolean> doneInCall = new ArrayList<>();
        onContext(context, () -> {
            List<Future<Void>> gets = new ArrayList<>();
            Promise<Void> issued = Promise.promise();
            for (int i = 0; i < events; i++) {
                int slot = i;
                context.runOnContext(v -> {
                    Future<Void> get = setup.channel().get(remote + slot * 4096L, setup.key(),
                            setup.local().address() + slot * 4096L, 4096);
                    doneInCall.add(get.isComplete());
                    gets.add(get);
                    if (gets.size() == events) {
                        issued.complete();
                    }
                });
            }
            return issued.future().compose(v -> Future.all(gets)).mapEmpty();
        });
        return doneInCall;
    }

    /** A caller chaining gets from their completions nests at most {@link PollingPolicy#syncCompletions()} deep. */
    @Test
    void aChainOfGetsRecursesNoDeeperThanTheBudget() throws Exception {
        UcxPair pair = pair(UcxSetup.defaults());
        UcxPair.GetSetup setup = pair.connectForGets(serverRegion(pair, "ucx", randomBytes(REGION, 8)), 4096);
        Context context = setup.context();
        onContext(context,
                () -> setup.channel().get(setup.remote().address(), setup.key(), setup.local().address(), 64));
        int chain = 20 * SYNC_COMPLETIONS;
        int[] depth = {0, 0, 0}; // now, deepest, gets completed
        Promise<Void> done = Promise.promise();
        Runnable[] next = new Runnable[1];
        next[0] = () -> {
            depth[0]++;
            setup.channel().get(setup.remote().address(), setup.key(), setup.local().address(), 64).onComplete(ar -> {
                depth[1] = Math.max(depth[1], depth[0]);
                if (ar.failed()) {
                    done.tryFail(ar.cause());
                } else if (++depth[2] == chain) {
                    done.complete();
                } else {
                    next[0].run();
                }
            });
            depth[0]--;
        };
        onContext(context, () -> {
            next[0].run();
            return done.future();
        });
        assertTrue(depth[1] > 1, "completions inside the call nest");
        assertTrue(depth[1] <= SYNC_COMPLETIONS + 1, "nested " + depth[1] + " deep");
    }

    /**
     * Reads used where they lie complete inside their call within the same budget as gets: a caller chaining reads from
     * their completions (a view when one is given, else a get) nests no deeper than the budget, and past it takes gets
     * that the polling task completes.
     */
    @Test
    void aChainOfViewsRecursesNoDeeperThanTheBudget() throws Exception {
        UcxPair pair = pair(UcxSetup.defaults());
        UcxPair.GetSetup setup = pair.connectForGets(serverRegion(pair, "ucx", randomBytes(REGION, 13)), 4096);
        Context context = setup.context();
        UcxChannel channel = setup.channel();
        int chain = 20 * SYNC_COMPLETIONS;
        int[] depth = {0, 0, 0}; // now, deepest, reads done
        Promise<Void> done = Promise.promise();
        Runnable[] next = new Runnable[1];
        Runnable step = () -> {
            depth[1] = Math.max(depth[1], depth[0]);
            if (++depth[2] == chain) {
                done.complete();
            } else {
                next[0].run();
            }
        };
        next[0] = () -> {
            depth[0]++;
            PeerView view = channel.view(setup.remote().address(), REGION, setup.key(), setup.remote().address(), 64);
            if (view != null) {
                view.release();
                step.run();
            } else {
                channel.get(setup.remote().address(), setup.key(), setup.local().address(), 64).onComplete(ar -> {
                    if (ar.failed()) {
                        done.tryFail(ar.cause());
                    } else {
                        step.run();
                    }
                });
            }
            depth[0]--;
        };
        onContext(context, () -> {
            next[0].run();
            return done.future();
        });
        assertTrue(depth[1] <= SYNC_COMPLETIONS + 1, "nested " + depth[1] + " deep");
        assertTrue(pair.client.metrics().laneViews().sum() >= SYNC_COMPLETIONS, "views within the budget");
        assertTrue(pair.client.metrics().laneGets().sum() > 0, "gets past it");
    }

    /**
     * The same chain with views handed to a handler: past the budget the next polling task hands them over, on the
     * caller's context, so the chain stays as shallow and every read is still a view (no get, no buffer).
     */
    @Test
    void aChainOfHandedViewsStaysShallowAndTakesNoGet() throws Exception {
        UcxPair pair = pair(UcxSetup.defaults());
        byte[] content = randomBytes(REGION, 14);
        UcxPair.GetSetup setup = pair.connectForGets(serverRegion(pair, "ucx", content), 4096);
        Context context = setup.context();
        UcxChannel channel = setup.channel();
        long remote = setup.remote().address();
        int chain = 20 * SYNC_COMPLETIONS;
        int[] depth = {0, 0, 0, 0}; // now, deepest, reads done, handed over off the caller's context
        Promise<Void> done = Promise.promise();
        Runnable[] next = new Runnable[1];
        next[0] = () -> {
            depth[0]++;
            int at = (depth[2] * 64) % (REGION - 64);
            boolean mapped = channel.view(remote, REGION, setup.key(), remote + at, 64, view -> {
                if (Vertx.currentContext() != context) {
                    depth[3]++;
                }
                depth[1] = Math.max(depth[1], depth[0]);
                boolean right = view.bytes().get(0) == content[at] && view.bytes().remaining() == 64;
                view.release();
                if (!right) {
                    done.tryFail("wrong bytes at " + at);
                } else if (++depth[2] == chain) {
                    done.complete();
                } else {
                    next[0].run();
                }
            });
            if (!mapped) {
                done.tryFail("UCX copies are mapped here");
            }
            depth[0]--;
        };
        onContext(context, () -> {
            next[0].run();
            return done.future();
        });
        assertTrue(depth[1] <= SYNC_COMPLETIONS + 1, "nested " + depth[1] + " deep");
        assertEquals(0, depth[3], "handed over on the caller's context");
        assertEquals(chain, pair.client.metrics().laneViews().sum(), "every read a view");
        assertEquals(0, pair.client.metrics().laneGets().sum(), "no get");
    }

    @Test
    void getsOffTheVerticlesEventLoopsTakeTheOwnerPath() throws Exception {
        UcxPair pair = pair(UcxSetup.defaults());
        byte[] content = randomBytes(REGION, 6);
        UcxPair.GetSetup setup = pair.connectForGets(serverRegion(pair, "ucx", content), 4096);
        UcxChannel channel = setup.channel();
        long remote = setup.remote().address();
        // A plain thread, a worker-pool thread of an event-loop context, a worker context, another Vert.x's event loop.
        await(channel.get(remote, setup.key(), setup.local().address(), 4096));
        onContext(setup.context(), () -> setup.context().executeBlocking(
                () -> await(channel.get(remote + 4096, setup.key(), setup.local().address(), 4096))));
        Context workerContext = ((VertxInternal) pair.clientVertx).createWorkerContext();
        onContext(workerContext, () -> channel.get(remote + 8192, setup.key(), setup.local().address(), 4096));
        onContext(pair.serverVertx.getOrCreateContext(),
                () -> channel.get(remote + 12288, setup.key(), setup.local().address(), 4096));
        byte[] got = new byte[4096];
        setup.local().buffer().get(0, got);
        assertArrayEquals(java.util.Arrays.copyOfRange(content, 12288, 16384), got);
        assertEquals(4, pair.client.metrics().gets().sum());
        assertEquals(0, pair.client.metrics().laneGets().sum(), "no lane served these");
        assertEquals(0, pair.client.laneWorkers());
    }

    @ParameterizedTest
    @ValueSource(strings = {"ucx", "file"})
    void concurrentGetsFromTwoEventLoopsRunOnALaneEach(String kind) throws Exception {
        UcxPair pair = pair(UcxSetup.defaults());
        byte[] content = randomBytes(REGION, 8);
        int window = 16;
        int slot = 16 << 10;
        UcxPair.GetSetup setup = pair.connectForGets(serverRegion(pair, kind, content), 2 * window * slot);
        Context[] loops = twoEventLoops(pair);
        int perLoop = 2_000;
        List<Future<Integer>> runs = new ArrayList<>();
        for (int l = 0; l < loops.length; l++) {
            Context loop = loops[l];
            int firstSlot = l * window;
            long seed = 100 + l;
            CompletableFuture<Future<Integer>> started = new CompletableFuture<>();
            loop.runOnContext(v -> started.complete(
                    new VerifiedGets(setup, content, loop, firstSlot, window, slot, perLoop, seed).run()));
            runs.add(started.get(TIMEOUT_S, TimeUnit.SECONDS));
        }
        for (Future<Integer> run : runs) {
            assertEquals(perLoop, await(run));
        }
        assertEquals(2L * perLoop, pair.client.metrics().laneGets().sum());
        assertEquals(2L * perLoop, pair.client.metrics().gets().sum());
        assertEquals(2, pair.client.metrics().lanes(), "one lane per event loop");
        assertEquals(2, pair.client.laneWorkers());
        assertEquals(0, pair.client.metrics().errors().sum());
    }

    /**
     * {@code count} gets of random ranges with {@code window} in flight from one context, each checked byte for byte.
     */
    private static final class VerifiedGets {
        private final UcxPair.GetSetup setup;
        private final byte[] content;
        private final Context context;
        private final int firstSlot;
        private final int window;
        private final int slot;
        private final int count;
        private final Random random;
        private final Promise<Integer> done = Promise.promise();
        private final Thread thread = Thread.currentThread();
        private int issued;
        private int verified;

        VerifiedGets(UcxPair.GetSetup setup, byte[] content, Context context, int firstSlot, int window, int slot,
                     int count, long seed) {
            this.setup = setup;
            this.content = content;
            this.context = context;
            this.firstSlot = firstSlot;
            this.window = window;
            this.slot = slot;
            this.count = count;
            this.random = new Random(seed);
        }

        Future<Integer> run() {
            for (int i = 0; i < window; i++) {
                issue(firstSlot + i);
            }
            return done.future();
        }

        private void issue(int s) {
            if (issued == count) {
                return;
            }
            issued++;
            int length = 1 + random.nextInt(slot);
            int offset = random.nextInt(content.length - length + 1);
            long local = setup.local().address() + (long) s * slot;
            setup.channel().get(setup.remote().address() + offset, setup.key(), local, length).onComplete(ar -> {
                try {
                    assertTrue(ar.succeeded(), () -> "get failed: " + ar.cause());
                    assertSame(thread, Thread.currentThread(), "completed on the issuing event loop");
                    assertSame(context, io.vertx.core.Vertx.currentContext(), "completed on the caller's context");
                    byte[] got = new byte[length];
                    setup.local().buffer().get(s * slot, got);
                    assertArrayEquals(java.util.Arrays.copyOfRange(content, offset, offset + length), got);
                } catch (Throwable e) {
                    done.tryFail(e);
                    return;
                }
                if (++verified == count) {
                    done.tryComplete(verified);
                } else {
                    issue(s);
                }
            });
        }
    }

    @Test
    void aReleasedKeyFailsNewLaneGetsAndItsLaneCopyClosesAfterTheGetsInFlight() throws Exception {
        UcxPair pair = pair(UcxSetup.defaults());
        byte[] content = randomBytes(REGION, 10);
        UcxPair.GetSetup setup = pair.connectForGets(serverRegion(pair, "file", content), REGION);
        Context context = setup.context();
        UcxChannel channel = setup.channel();
        onContext(context, () -> channel.get(setup.remote().address(), setup.key(), setup.local().address(), 64));
        assertEquals(1, pair.client.metrics().laneRemoteKeys(), "the lane unpacked its own copy");
        // Gets in flight on the lane when the last hold goes complete: the lane's copy outlives them. The file
        // region's gets are emulated, served by the server's owner thread: held up until the release is done, the
        // gets are surely in flight when it happens. The release completes on the caller's context once the owner
        // thread released the key; the lane was told before (its task is queued ahead on the same event loop).
        CountDownLatch serverHeld = new CountDownLatch(1);
        pair.server.loop().execute(LoopTask.of(() -> awaitLatch(serverHeld)));
        CompletableFuture<List<Future<Void>>> issued = new CompletableFuture<>();
        CompletableFuture<Integer> laneKeysAtRelease = new CompletableFuture<>();
        context.runOnContext(v -> {
            List<Future<Void>> gets = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                gets.add(channel.get(setup.remote().address(), setup.key(), setup.local().address(), REGION));
            }
            issued.complete(gets);
            channel.releaseRemoteKey(setup.key()).onComplete(ar -> {
                laneKeysAtRelease.complete(gets.stream().anyMatch(Future::isComplete) ? -1
                        : (int) pair.client.metrics().laneRemoteKeys());
                serverHeld.countDown();
            });
        });
        List<Future<Void>> gets = issued.get(TIMEOUT_S, TimeUnit.SECONDS);
        assertEquals(1, laneKeysAtRelease.get(TIMEOUT_S, TimeUnit.SECONDS),
                "released with all 16 gets in flight, the lane's copy stays open");
        assertFalse(setup.key().isValid(), "released by its last holder");
        for (Future<Void> get : gets) {
            await(get);
        }
        byte[] got = new byte[REGION];
        setup.local().buffer().get(0, got);
        assertArrayEquals(content, got);
        // The copy closes as the last get using it is settled, before that get's outcome is delivered.
        assertEquals(0, pair.client.metrics().laneRemoteKeys(), "the lane's copy was closed");
        ExecutionException late = assertThrows(ExecutionException.class, () -> onContext(context,
                () -> channel.get(setup.remote().address(), setup.key(), setup.local().address(), 64)));
        assertTrue(late.getCause().getMessage().contains("remote key is closed"), late.getCause().getMessage());
        assertEquals(17, pair.client.metrics().laneGets().sum());
    }

    /**
     * The peer is a process of its own, frozen with the gets in flight and then killed: none of them can be answered,
     * so each must fail (an undeployed worker in this JVM would first serve them).
     */
    @Test
    void aPeerGoneFailsLaneGetsAndANewChannelRunsOnANewLane() throws Exception {
        UcxPair pair = pair(UcxSetup.defaults());
        byte[] peerContent = randomBytes(REGION, 11);
        Context context = pair.clientVertx.getOrCreateContext();
        UcxMemoryRegion local = await(pair.client.register(ByteBuffer.allocateDirect(REGION)));
        try (UcxPeerProcess peer = UcxPeerProcess.start(tmp, REGION, 11)) {
            UcxChannel channel = onContext(context, () -> pair.client.connect("127.0.0.1", peer.port));
            UcxRemoteKey peerKey = onContext(context, () -> channel.unpackRemoteKey(peer.packedKey));
            onContext(context, () -> channel.get(peer.address + 64, peerKey, local.address(), 64));
            assertArrayEquals(Arrays.copyOfRange(peerContent, 64, 128), bytes(local, 64));
            assertEquals(1, pair.client.metrics().lanes());

            peer.freeze();
            CompletableFuture<List<Future<Void>>> issued = new CompletableFuture<>();
            context.runOnContext(v -> {
                List<Future<Void>> gets = new ArrayList<>();
                for (int i = 0; i < 64; i++) {
                    gets.add(channel.get(peer.address, peerKey, local.address(), REGION));
                }
                issued.complete(gets);
            });
            List<Future<Void>> inFlight = issued.get(TIMEOUT_S, TimeUnit.SECONDS);
            peer.kill();
            for (Future<Void> get : inFlight) {
                ExecutionException failed = assertThrows(ExecutionException.class, () -> await(get),
                        "a get the dead peer never answered succeeded");
                assertInstanceOf(UcxTransportException.class, failed.getCause());
            }
            ExecutionException later = assertThrows(ExecutionException.class, () -> onContext(context,
                    () -> channel.get(peer.address, peerKey, local.address(), 64)));
            assertInstanceOf(UcxTransportException.class, later.getCause());
        }
        awaitCondition(pair.clientVertx, () -> pair.client.metrics().lanes() == 0, "the dead peer's lane closed");
        assertEquals(0, pair.client.metrics().laneRemoteKeys());

        // The agent comes back (a new worker): a new channel gets a new lane on the same event loop.
        UcxWorkerVerticle restarted = new UcxWorkerVerticle(UcxSetup.defaults());
        await(pair.serverVertx.deployVerticle(restarted));
        UcxListener listener = await(restarted.listen("127.0.0.1", 0, ch -> { }));
        byte[] content = randomBytes(4096, 12);
        UcxMemoryRegion region = await(restarted.allocate(content.length));
        region.buffer().duplicate().clear().put(content);
        UcxChannel fresh = onContext(context, () -> pair.client.connect("127.0.0.1", listener.port()));
        UcxRemoteKey key = onContext(context, () -> fresh.unpackRemoteKey(region.packedRemoteKey()));
        long laneGets = pair.client.metrics().laneGets().sum();
        onContext(context, () -> fresh.get(region.address(), key, local.address(), content.length));
        assertArrayEquals(content, bytes(local, content.length));
        assertEquals(laneGets + 1, pair.client.metrics().laneGets().sum());
        assertEquals(1, pair.client.metrics().lanes());
        assertEquals(1, pair.client.laneWorkers(), "the event loop's worker serves the new lane");
    }

    private static byte[] bytes(UcxMemoryRegion region, int length) {
        byte[] got = new byte[length];
        region.buffer().get(0, got);
        return got;
    }

    @Test
    void undeployingWithLiveLanesFailsTheirGetsAndClosesCleanly() throws Exception {
        UcxPair pair = pair(UcxSetup.defaults());
        UcxPair.GetSetup setup = pair.connectForGets(serverRegion(pair, "file", randomBytes(REGION, 13)), REGION);
        Context[] loops = twoEventLoops(pair);
        List<Future<Void>> inFlight = new ArrayList<>();
        for (Context loop : loops) {
            CompletableFuture<List<Future<Void>>> issued = new CompletableFuture<>();
            loop.runOnContext(v -> {
                List<Future<Void>> gets = new ArrayList<>();
                for (int i = 0; i < 32; i++) {
                    gets.add(setup.channel().get(setup.remote().address(), setup.key(), setup.local().address(),
                            REGION));
                }
                issued.complete(gets);
            });
            inFlight.addAll(issued.get(TIMEOUT_S, TimeUnit.SECONDS));
        }
        assertEquals(2, pair.client.metrics().lanes());
        List<String> warnings;
        try (LogCapture capture = LogCapture.of("org.seaweedfs.rdma.ucx", "WARN")) {
            await(pair.clientVertx.undeploy(pair.clientDeployment));
            warnings = capture.messages();
        }
        for (Future<Void> get : inFlight) {
            try {
                await(get);
            } catch (ExecutionException e) {
                assertInstanceOf(UcxTransportException.class, e.getCause());
            }
        }
        assertEquals(0, pair.client.metrics().lanes());
        assertEquals(0, pair.client.metrics().laneRemoteKeys());
        assertEquals(List.of(), warnings, "no leak or timeout warnings");
        ExecutionException after = assertThrows(ExecutionException.class, () -> onContext(loops[0],
                () -> setup.channel().get(setup.remote().address(), setup.key(), setup.local().address(), 64)));
        assertInstanceOf(UcxTransportException.class, after.getCause());
    }

    /** Shared-memory gets of UCX memory complete within the call: the recursion cap and JUCX requests are covered. */
    @Test
    void heapStaysFlatOverAMillionLaneGets() throws Exception {
        UcxPair pair = pair(UcxSetup.defaults());
        UcxPair.GetSetup setup = pair.connectForGets(await(pair.server.allocate(1 << 16)), 1 << 16);
        runGets(setup, 100_000);
        long before = usedHeapAfterGc();
        runGets(setup, 1_000_000);
        long after = usedHeapAfterGc();
        assertTrue(after - before < 48L << 20, "heap grew by " + ((after - before) >> 20) + " MiB over 1M gets");
        assertEquals(1_100_000, pair.client.metrics().laneGets().sum());
        assertEquals(1, pair.client.metrics().lanes());
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            if (!latch.await(TIMEOUT_S, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch not released in time");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Thread threadOf(Context context) throws Exception {
        return onContext(context, () -> Future.succeededFuture(Thread.currentThread()));
    }

    /** Two event-loop contexts of the client's Vert.x on different threads. */
    private static Context[] twoEventLoops(UcxPair pair) throws Exception {
        VertxInternal vertx = (VertxInternal) pair.clientVertx;
        Context first = vertx.createEventLoopContext();
        Thread firstThread = threadOf(first);
        for (int i = 0; i < 16; i++) {
            Context other = vertx.createEventLoopContext();
            if (threadOf(other) != firstThread) {
                return new Context[] {first, other};
            }
        }
        return fail("the client's Vert.x has a single event loop");
    }
}
