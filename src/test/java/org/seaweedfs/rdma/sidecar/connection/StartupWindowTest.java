package org.seaweedfs.rdma.sidecar.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The start-up window's waiters: bounded, woken by a change or the close, timed out, on their caller's context. */
@ExtendWith(VertxExtension.class)
class StartupWindowTest {

    @Test
    void waitersAreBoundedAndCompleteOnTheirCallersContext(Vertx vertx) {
        StartupWindow window = new StartupWindow("a:1, b:2", 1);
        Context caller = vertx.getOrCreateContext();
        Promise<Boolean> sameContext = Promise.promise();
        Future<Boolean> first = run(caller, () -> window.nextChange(vertx, 60_000)
                .andThen(ar -> sameContext.complete(Vertx.currentContext() == caller)));
        assertEquals(1, window.waiting());
        assertFalse(await(run(caller, () -> window.nextChange(vertx, 60_000))), "past the bound: told at once");
        window.changed("b:2");
        assertTrue(await(first));
        assertTrue(await(sameContext.future()), "completed on the caller's context");
        assertEquals("b:2", window.pending());
        assertEquals(0, window.waiting());
    }

    @Test
    void aWaiterTimesOutAndTheCloseWakesTheRest(Vertx vertx) {
        StartupWindow window = new StartupWindow("a:1", 8);
        assertFalse(await(window.nextChange(vertx, 1)));
        Future<Boolean> waiting = window.nextChange(vertx, 60_000);
        window.close();
        assertTrue(await(waiting));
        assertFalse(window.isOpen());
        assertTrue(await(window.nextChange(vertx, 60_000)), "closed: nothing to wait for");
        assertFalse(new StartupWindow("", 1).isOpen(), "no configured agent: no start-up to wait out");
    }

    private static <T> Future<T> run(Context context, java.util.function.Supplier<Future<T>> action) {
        Promise<Future<T>> started = Promise.promise();
        context.runOnContext(v -> started.complete(action.get()));
        return await(started.future());
    }
}
