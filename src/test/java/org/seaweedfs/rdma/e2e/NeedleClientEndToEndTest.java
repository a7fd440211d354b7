package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.client.Needle;
import org.seaweedfs.rdma.client.NeedleClient;
import org.seaweedfs.rdma.client.NeedleException;
import org.seaweedfs.rdma.client.NeedleInfo;

/**
 * Both {@link NeedleClient}s against the real sidecar reading over UCX: {@code SeaweedRdma.client()} on the
 * caller's context and {@link NeedleClient#overEventBus} give the same bytes, metadata and failures.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(SharedStack.class)
class NeedleClientEndToEndTest {

    private Vertx vertx;
    private NeedleClient local;
    private NeedleClient overBus;
    private List<FixtureNeedles.Expected> needles;

    @BeforeAll
    void clients() {
        SharedStack.Running stack = SharedStack.get();
        vertx = stack.sidecar.vertx;
        local = stack.sidecar.server.client();
        overBus = NeedleClient.overEventBus(vertx);
        needles = Stream.concat(FixtureNeedles.live(stack.volumes, 1).stream(),
                FixtureNeedles.live(stack.volumes, 2).stream()).toList();
    }

    /** Runs {@code call} on an event-loop context of the sidecar's Vert.x, as a verticle of the app would. */
    private <T> T onEventLoop(Function<NeedleClient, Future<T>> call, NeedleClient client) {
        Context context = vertx.getOrCreateContext();
        Promise<T> result = Promise.promise();
        context.runOnContext(v -> call.apply(client).onComplete(result));
        return await(result.future());
    }

    @Test
    void bothClientsReadEveryNeedleWithItsMetadata() {
        for (FixtureNeedles.Expected e : needles) {
            String fid = e.fid().toString();
            Needle a = onEventLoop(c -> c.read(fid), local);
            Needle b = onEventLoop(c -> c.read(fid), overBus);
            assertArrayEquals(e.plain(), a.body().getBytes(), fid);
            assertArrayEquals(e.plain(), b.body().getBytes(), fid);
            assertEquals(e.etag(), a.etag(), fid);
            assertEquals(e.name(), a.name(), fid);
            assertEquals(e.lastModified(), a.lastModified(), fid);
            assertEquals(e.plain().length, a.size(), fid);
            assertEquals("rdma", a.source(), fid);
            assertTrue(a.viaRdma());
            assertEquals(new Needle(fid, b.body(), a.etag(), a.contentType(), a.name(), a.lastModified(), a.size(),
                    a.source()), b, fid);
        }
    }

    @Test
    void bothClientsReadSlicesAndStat() {
        FixtureNeedles.Expected e = needles.stream().filter(n -> n.plain().length > 200).findFirst().orElseThrow();
        String fid = e.fid().toString();
        byte[] want = Arrays.copyOfRange(e.plain(), 100, 150);
        byte[] tail = Arrays.copyOfRange(e.plain(), 150, e.plain().length);
        for (NeedleClient client : List.of(local, overBus)) {
            assertArrayEquals(want, onEventLoop(c -> c.read(fid, 100, 50), client).body().getBytes());
            assertArrayEquals(tail, onEventLoop(c -> c.read(fid, 150, -1), client).body().getBytes());
            assertEquals(e.plain().length, onEventLoop(c -> c.read(fid, 100, 50), client).size());
        }
        NeedleInfo a = onEventLoop(c -> c.stat(fid), local);
        NeedleInfo b = onEventLoop(c -> c.stat(fid), overBus);
        assertEquals(a, b);
        assertEquals(fid, a.fid());
        assertEquals(e.etag(), a.etag());
        assertEquals(e.compressed(), a.compressed());
        assertEquals(e.stored().length, a.size());
    }

    @Test
    void bothClientsFailAlikeWithTheEventBusCodes() {
        String present = needles.get(0).fid().toString();
        long size = needles.get(0).plain().length;
        List<Function<NeedleClient, Future<?>>> calls = List.of(
                c -> c.read("2,0306bfd556"),              // wrong cookie
                c -> c.read("2,7777777712345678"),        // missing key
                c -> c.stat("2,7777777712345678"),
                c -> c.read("not a fid"),
                c -> c.stat(null),
                c -> c.read(present, -1, 10),
                c -> c.read(present, 0, -2),
                c -> c.read(present, size + 1, -1));
        List<NeedleException.Kind> kinds = List.of(NeedleException.Kind.NOT_FOUND, NeedleException.Kind.NOT_FOUND,
                NeedleException.Kind.NOT_FOUND, NeedleException.Kind.BAD_REQUEST, NeedleException.Kind.BAD_REQUEST,
                NeedleException.Kind.BAD_REQUEST, NeedleException.Kind.BAD_REQUEST,
                NeedleException.Kind.RANGE_NOT_SATISFIABLE);
        for (int i = 0; i < calls.size(); i++) {
            Function<NeedleClient, Future<?>> call = calls.get(i);
            List<NeedleException> failures = new ArrayList<>();
            for (NeedleClient client : List.of(local, overBus)) {
                Throwable t =
                        assertThrows(Throwable.class,
                        () -> onEventLoop(c -> call.apply(c).map(x -> (Object) x), client));
                failures.add(assertInstanceOf(t));
            }
            assertEquals(kinds.get(i), failures.get(0).kind(), "call " + i + ": " + failures.get(0).getMessage());
            assertEquals(kinds.get(i), failures.get(1).kind(), "call " + i + ": " + failures.get(1).getMessage());
            assertEquals(kinds.get(i).code, failures.get(1).code());
            assertEquals(failures.get(0).getMessage(), failures.get(1).getMessage(), "call " + i);
        }
    }

    private static NeedleException assertInstanceOf(Throwable t) {
        Throwable cause = t;
        while (cause != null && !(cause instanceof NeedleException)) {
            cause = cause.getCause();
        }
        if (cause == null) {
            throw new AssertionError("not a NeedleException", t);
        }
        return (NeedleException) cause;
    }

    @Test
    void theInProcessClientCompletesOnTheCallersContextWithoutAHop() {
        String fid = needles.get(0).fid().toString();
        Context context = vertx.getOrCreateContext();
        Promise<Boolean> sameContext = Promise.promise();
        context.runOnContext(v -> {
            Thread caller = Thread.currentThread();
            local.read(fid).onComplete(ar -> sameContext.complete(
                    ar.succeeded() && Vertx.currentContext() == context && Thread.currentThread() == caller));
        });
        assertTrue(await(sameContext.future()));
        // Off any context it still works (on a context of the sidecar's Vert.x).
        assertArrayEquals(needles.get(0).plain(), await(local.read(fid)).body().getBytes());
    }

    @Test
    void aProcessWithoutASidecarHasNoInProcessClient() {
        Stack agentOnly = SharedStack.get().agent;
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> agentOnly.server.client());
        assertTrue(e.getMessage().contains("no sidecar"));
        assertSame(agentOnly.vertx, agentOnly.server.vertx());
    }
}
