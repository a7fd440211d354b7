package org.seaweedfs.rdma.sidecar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;
import static org.seaweedfs.rdma.testing.Await.until;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.volume.FileId;

/** The one admission of reads: every kind of read takes a slot, a read beyond the bound fails at once. */
class AdmittedSourceTest {

    private static final FileId FID = FileId.parse("3,01637037d6");

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() {
        await(vertx.close());
    }

    @Test
    void readsBeyondTheBoundFailAtOnceAndSlotsComeBackWhenReadsEnd() {
        InMemoryNeedleSource needles = new InMemoryNeedleSource(vertx);
        needles.put(FID, "hello".getBytes(), "a.txt", "text/plain", 0, Map.of());
        Admission admission = new Admission(2);
        AdmittedSource source = new AdmittedSource(vertx, needles, admission);
        needles.hold(true);
        Context context = vertx.getOrCreateContext();
        List<Future<?>> held = await(Future.<List<Future<?>>>future(p -> context.runOnContext(v -> p.complete(
                List.of(source.read(FID), source.stat(FID))))));
        until("both reads reached the source", () -> needles.heldReads() == 2);
        assertEquals(2, admission.inFlight());

        Promise<Context> refusedOn = Promise.promise();
        Promise<Throwable> refusal = Promise.promise();
        context.runOnContext(v -> source.readSlice(FID, null, 0, 2, 1 << 20).onComplete(ar -> {
            refusedOn.complete(Vertx.currentContext());
            refusal.complete(ar.cause());
        }));
        ReadFailure refused = (ReadFailure) await(refusal.future());
        assertSame(context, await(refusedOn.future()), "the refusal completes on the caller's context");
        assertEquals(ReadFailure.Kind.UNAVAILABLE, refused.kind());
        assertTrue(refused.overload());
        assertEquals(1, refused.retryAfterSeconds());
        assertTrue(refused.getMessage().contains("sidecar.maxInFlightReads=2"), refused.getMessage());
        assertEquals(2, admission.inFlight(), "a refused read takes no slot");

        needles.releaseHeld();
        held.forEach(f -> await(f));
        ((NeedleContent) held.get(0).result()).release();
        until("every slot came back", () -> admission.inFlight() == 0);
        NeedleContent again = await(Future.<NeedleContent>future(p -> context.runOnContext(v ->
                source.read(FID, "volume-server:8080").onComplete(p))));
        again.release();
        assertEquals("volume-server:8080", needles.lastHint(), "the hint reaches the source");
        assertEquals(0, admission.inFlight());
    }

    @Test
    void aFailedReadGivesItsSlotBack() {
        InMemoryNeedleSource needles = new InMemoryNeedleSource(vertx);
        Admission admission = new Admission(1);
        AdmittedSource source = new AdmittedSource(vertx, needles, admission);
        Throwable missing = await(Future.<Throwable>future(p -> vertx.runOnContext(v ->
                source.read(FID).onComplete(ar -> p.complete(ar.cause())))));
        assertEquals(ReadFailure.Kind.NOT_FOUND, ((ReadFailure) missing).kind());
        assertEquals(0, admission.inFlight());
    }
}
