package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.internal.VertxInternal;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.testing.UcxSetup;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.TIMEOUT_S;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.await;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.mapReadOnly;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.randomBytes;

/**
 * Tears workers down, again and again, while peers' emulated gets (a registered file region read over TCP) are in
 * flight on event-loop lanes and memory is registered and deregistered on both contexts. Before the fix, undeploying
 * the serving side killed the JVM now and then (SIGSEGV in {@code ucp_mem_rereg_mds} from {@code ucp_worker_destroy}:
 * UCX 1.13 purging queued get replies); a crash fails the surefire fork, so surviving every round is the assertion,
 * with every get either failed with a {@link UcxTransportException} or successful with the region's bytes in its own
 * slice of the local buffer.
 */
@Tag("slow")
class UcxTeardownStressTest {

    private static final int REGION = 1 << 20;
    private static final int ROUNDS = 12;
    private static final int GETS_PER_LOOP = 48;

    /** One slice of {@link #REGION} bytes per get in flight, reused (cleared) every round. */
    private final ByteBuffer local = ByteBuffer.allocateDirect(2 * GETS_PER_LOOP * REGION);

    @TempDir
    Path tmp;

    @Test
    void undeployingEitherSideWhileLanesReadAndMemoryChurnsNeverCrashes() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            oneRound(round, round % 2 == 0);
        }
    }

    private void oneRound(int round, boolean serverGoesFirst) throws Exception {
        UcxPair pair = new UcxPair(UcxSetup.defaults());
        try {
            byte[] content = randomBytes(REGION, round);
            UcxMemoryRegion remote = await(pair.server.register(mapReadOnly(tmp, "v" + round + ".dat", content)));
            clear(local);
            UcxPair.GetSetup setup = pair.connectForGets(remote, local);
            AtomicBoolean churning = new AtomicBoolean(true);
            List<CompletableFuture<Integer>> churn =
                    List.of(churn(pair.server, churning), churn(pair.client, churning));
            List<Future<Void>> inFlight = new ArrayList<>();
            for (Context loop : eventLoops(pair)) {
                CompletableFuture<List<Future<Void>>> issued = new CompletableFuture<>();
                int first = inFlight.size();
                loop.runOnContext(v -> {
                    List<Future<Void>> gets = new ArrayList<>();
                    for (int i = first; i < first + GETS_PER_LOOP; i++) {
                        gets.add(setup.channel().get(remote.address(), setup.key(),
                                setup.local().address() + (long) i * REGION, REGION));
                    }
                    issued.complete(gets);
                });
                inFlight.addAll(issued.get(TIMEOUT_S, TimeUnit.SECONDS));
            }
            if (serverGoesFirst) {
                await(pair.serverVertx.undeploy(pair.serverDeployment));
            } else {
                await(pair.clientVertx.undeploy(pair.clientDeployment));
            }
            churning.set(false);
            for (CompletableFuture<Integer> c : churn) {
                assertTrue(c.get(TIMEOUT_S, TimeUnit.SECONDS) >= 0);
            }
            ByteBuffer expected = ByteBuffer.wrap(content);
            for (int i = 0; i < inFlight.size(); i++) {
                try {
                    await(inFlight.get(i));
                } catch (ExecutionException e) {
                    assertInstanceOf(UcxTransportException.class, e.getCause());
                    continue;
                }
                assertEquals(-1, local.slice(i * REGION, REGION).mismatch(expected),
                        "round " + round + ", get " + i + " succeeded with other bytes than the region's");
            }
        } finally {
            pair.close();
        }
    }

    /** Registers and deregisters small buffers on {@code worker} until told to stop or the worker stops. */
    private static CompletableFuture<Integer> churn(UcxWorkerVerticle worker, AtomicBoolean churning) {
        CompletableFuture<Integer> done = new CompletableFuture<>();
        AtomicInteger cycles = new AtomicInteger();
        Thread thread = new Thread(() -> {
            try {
                while (churning.get()) {
                    UcxMemoryRegion region;
                    try {
                        region = await(cycles.get() % 2 == 0 ? worker.register(ByteBuffer.allocateDirect(64 << 10))
                                : worker.allocate(64 << 10));
                        await(worker.deregister(region));
                    } catch (ExecutionException stopped) {
                        assertInstanceOf(UcxTransportException.class, stopped.getCause());
                        break;
                    }
                    cycles.incrementAndGet();
                }
                done.complete(cycles.get());
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, "memory-churn");
        thread.setDaemon(true);
        thread.start();
        return done;
    }

    private static void clear(ByteBuffer buffer) {
        byte[] zeros = new byte[REGION];
        for (int at = 0; at < buffer.capacity(); at += REGION) {
            buffer.put(at, zeros);
        }
    }

    private static Context[] eventLoops(UcxPair pair) {
        VertxInternal vertx = (VertxInternal) pair.clientVertx;
        return new Context[] {vertx.createEventLoopContext(), vertx.createEventLoopContext()};
    }
}
