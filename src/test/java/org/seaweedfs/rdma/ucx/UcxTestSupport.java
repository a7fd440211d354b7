package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;

import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.fail;

/** Helpers of the UCX tests: waiting on futures, running on a context, test data. */
final class UcxTestSupport {

    static final long TIMEOUT_S = 20;

    private UcxTestSupport() {
    }

    /** Runs {@code action} on {@code context} and waits for its future, checking it completed on that context. */
    static <T> T onContext(Context context, Supplier<Future<T>> action) throws Exception {
        Promise<T> promise = Promise.promise();
        context.runOnContext(v -> action.get().onComplete(ar -> {
            if (Vertx.currentContext() != context) {
                promise.tryFail(new AssertionError("completed on " + Vertx.currentContext()
                        + ", not the caller's context"));
            } else {
                promise.handle(ar);
            }
        }));
        return await(promise.future());
    }

    static <T> T await(Future<T> future) throws Exception {
        return future.toCompletionStage().toCompletableFuture().get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    /**
     * Waits until {@code condition} holds, checked on a timer of {@code vertx} (for state that settles over several
     * steps on other threads, with no single event to wait for); fails after {@link #TIMEOUT_S}.
     */
    static void awaitCondition(Vertx vertx, BooleanSupplier condition, String what) throws Exception {
        if (condition.getAsBoolean()) {
            return;
        }
        Promise<Void> holds = Promise.promise();
        // Not at once: a timer cancelled in its first run, before setPeriodic returned, fails in Vert.x 5.
        long timer = vertx.setPeriodic(1, 5, id -> {
            if (condition.getAsBoolean()) {
                vertx.cancelTimer(id);
                holds.tryComplete();
            }
        });
        try {
            await(holds.future());
        } catch (TimeoutException e) {
            fail("timed out waiting until " + what);
        } finally {
            vertx.cancelTimer(timer);
        }
    }

    /** Operations the worker's owner loop counts as in flight (it spins only while there are some). */
    static int outstanding(UcxWorkerVerticle worker) throws Exception {
        CompletableFuture<Integer> n = new CompletableFuture<>();
        worker.loop().execute(LoopTask.of(() -> n.complete(worker.loop().outstanding())));
        return n.get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    static long usedHeapAfterGc() {
        Runtime rt = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc(); // a full, stop-the-world collection: done when it returns
            used = Math.min(used, rt.totalMemory() - rt.freeMemory());
        }
        return used;
    }

    /** Writes {@code content} to a file in {@code dir} and maps it read-only, as the agent maps a volume. */
    static MappedByteBuffer mapReadOnly(Path dir, String name, byte[] content) throws Exception {
        Path file = dir.resolve(name);
        Files.write(file, content);
        try (FileChannel fc = FileChannel.open(file, StandardOpenOption.READ)) {
            return fc.map(FileChannel.MapMode.READ_ONLY, 0, content.length);
        }
    }

    static byte[] randomBytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    static Buffer randomBuffer(int n, long seed) {
        return Buffer.buffer(randomBytes(n, seed));
    }

    /**
     * Issues {@code count} 64-byte gets with a bounded window, from the given context, and checks each one's bytes:
     * each of the window's lanes owns a 64-byte slot of the local buffer, marks it with the complement of what the
     * next get must bring, and compares it with the remote region's bytes when the get completed.
     */
    static void runGets(UcxPair.GetSetup setup, int count) throws Exception {
        UcxChannel channel = setup.channel();
        UcxRemoteKey key = setup.key();
        ByteBuffer remote = setup.remote().buffer();
        ByteBuffer local = setup.local().buffer();
        int window = 256;
        int slot = 64;
        int remoteSlots = 64;
        CompletableFuture<Void> done = new CompletableFuture<>();
        AtomicInteger issued = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        IntConsumer[] issue = new IntConsumer[1];
        issue[0] = lane -> {
            int i = issued.getAndIncrement();
            if (i >= count) {
                return;
            }
            int from = (i % remoteSlots) * slot;
            int to = lane * slot;
            for (int b = 0; b < slot; b += Long.BYTES) {
                local.putLong(to + b, ~remote.getLong(from + b));
            }
            channel.get(setup.remote().address() + from, key, setup.local().address() + to, slot).onComplete(ar -> {
                if (ar.failed()) {
                    done.completeExceptionally(ar.cause());
                    return;
                }
                for (int b = 0; b < slot; b += Long.BYTES) {
                    if (local.getLong(to + b) != remote.getLong(from + b)) {
                        done.completeExceptionally(new AssertionError("get " + i + " of remote bytes " + from + ".."
                                + (from + slot) + " brought other bytes (at " + b + ")"));
                        return;
                    }
                }
                if (completed.incrementAndGet() == count) {
                    done.complete(null);
                } else {
                    issue[0].accept(lane);
                }
            });
        };
        setup.context().runOnContext(v -> {
            for (int lane = 0; lane < window; lane++) {
                issue[0].accept(lane);
            }
        });
        done.get(60, TimeUnit.SECONDS);
    }
}
