package org.seaweedfs.rdma.sidecar.read;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPath;
import org.seaweedfs.rdma.volume.FileId;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

/** Reads that wait share one deadline queue per event loop: they time out as a timer per read did, nothing more. */
class ReadDeadlinesTest {

    private static final long TIMEOUT_MS = 100;

    private final Vertx vertx = Vertx.vertx();
    private final ReadGate gate = new ReadGate(vertx, new ReadPathOptions(TIMEOUT_MS, 1 << 20),
            new ReadCounters(), ReadPath.RDMA);

    @AfterEach
    void close() {
        await(vertx.close());
    }

    /** Starts a read on {@code context} whose body keeps the attempt (so it waits) and returns its outcome. */
    private Future<NeedleContent> waitingRead(Context context, List<ReadAttempt> held, int key) {
        Promise<Future<NeedleContent>> started = Promise.promise();
        context.runOnContext(v ->
                started.complete(gate.start(FileId.parse("3," + Integer.toHexString(key + 1) + "00000001"),
                held::add)));
        return await(started.future());
    }

    @Test
    void aReadThatWaitsPastItsTimeoutFailsTimeoutOnItsContextAndOneThatFinishesDoesNot() {
        Context loop = vertx.getOrCreateContext();
        List<ReadAttempt> held = new ArrayList<>();
        Future<NeedleContent> hung = waitingRead(loop, held, 1);
        Future<NeedleContent> answered = waitingRead(loop, held, 2);
        await(runOn(loop, () -> held.get(1).fail(ReadFailure.notFound("needle not found"))));
        Context[] completedOn = new Context[1];
        Promise<Throwable> failure = Promise.promise();
        loop.runOnContext(v -> hung.onComplete(ar -> {
            completedOn[0] = Vertx.currentContext();
            failure.complete(ar.cause());
        }));
        ReadFailure timedOut = (ReadFailure) await(failure.future());
        assertEquals(ReadFailure.Kind.TIMEOUT, timedOut.kind());
        assertTrue(timedOut.getMessage().contains("took more than " + TIMEOUT_MS + " ms"), timedOut.getMessage());
        assertSame(loop, completedOn[0]);
        assertEquals(ReadFailure.Kind.NOT_FOUND, ((ReadFailure) answered.cause()).kind(), "its own outcome stays");
        assertEquals(1, gate.counters().failures(ReadFailure.Kind.TIMEOUT));
    }

    /**
     * The event loop's deadline timer belongs to no verticle: the verticle whose read armed it can be undeployed (a
     * Vert.x timer would go with it) and the reads still waiting on that loop still time out.
     */
    @Test
    void readsStillTimeOutAfterTheVerticleThatArmedTheTimerIsUndeployed() {
        List<ReadAttempt> held = new ArrayList<>();
        Promise<Future<NeedleContent>> first = Promise.promise();
        String deployment = await(vertx.deployVerticle(new VerticleBase() {
            @Override
            public Future<?> start() {
                first.complete(gate.start(FileId.parse("3,0200000001"), held::add));
                return Future.succeededFuture();
            }
        }));
        Future<NeedleContent> hung = await(first.future());
        await(vertx.undeploy(deployment));
        Throwable failure = await(hung.transform(ar -> Future.succeededFuture(ar.cause())));
        assertEquals(ReadFailure.Kind.TIMEOUT, ((ReadFailure) failure).kind());
    }

    @Test
    void readsOnAWorkerContextTimeOutToo() {
        Context worker = ((VertxInternal) vertx).createWorkerContext();
        List<ReadAttempt> held = new ArrayList<>();
        Future<NeedleContent> hung = waitingRead(worker, held, 1);
        Throwable failure = await(hung.transform(ar -> Future.succeededFuture(ar.cause())));
        assertEquals(ReadFailure.Kind.TIMEOUT, ((ReadFailure) failure).kind());
    }

    /** A hung read at the head of the queue: the finished reads behind it are compacted away, not kept. */
    @Test
    void finishedReadsBehindAHungOneDoNotPileUp() {
        Context loop = vertx.getOrCreateContext();
        List<ReadAttempt> held = new ArrayList<>();
        Future<NeedleContent> hung = waitingRead(loop, held, 0);
        int[] longest = {0};
        await(runOn(loop, () -> {
            for (int i = 1; i <= 10_000; i++) {
                gate.start(FileId.parse("3," + Integer.toHexString(i + 1) + "00000001"), held::add);
                held.get(i).fail(ReadFailure.notFound("needle not found"));
                longest[0] = Math.max(longest[0], gate.deadlines(loop).queued());
            }
        }));
        assertTrue(longest[0] <= 1024, "the queue held " + longest[0] + " reads");
        Throwable failure = await(hung.transform(ar -> Future.succeededFuture(ar.cause())));
        assertEquals(ReadFailure.Kind.TIMEOUT, ((ReadFailure) failure).kind());
        assertEquals(1, gate.counters().failures(ReadFailure.Kind.TIMEOUT));
    }

    private static Future<Void> runOn(Context context, Runnable action) {
        Promise<Void> done = Promise.promise();
        context.runOnContext(v -> {
            action.run();
            done.complete();
        });
        return done.future();
    }
}
