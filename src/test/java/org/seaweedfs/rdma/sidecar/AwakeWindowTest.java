package org.seaweedfs.rdma.sidecar;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.testing.Await;

@ExtendWith(VertxExtension.class)
class AwakeWindowTest {

    /** The loop polls after an answer and stops once the window has passed with no answer; 0 never polls. */
    @Test
    void aWindowKeepsTheLoopPollingAfterAnAnswerThenLetsItSleep(Vertx vertx) throws Exception {
        Context context = vertx.getOrCreateContext();
        AwakeWindow window = new AwakeWindow(context, 2_000);
        AwakeWindow none = new AwakeWindow(context, 0);
        Promise<boolean[]> afterAnswer = Promise.promise();
        context.runOnContext(v -> {
            window.answered();
            none.answered();
            afterAnswer.complete(new boolean[] {window.polling(), none.polling()});
        });
        boolean[] polling = afterAnswer.future().await(10, TimeUnit.SECONDS);
        assertTrue(polling[0], "polling right after an answer");
        assertFalse(polling[1], "a window of 0 never polls");
        Await.until("the window closes with no answer", () -> onContext(context, window::polling) == Boolean.FALSE);
    }

    private static Boolean onContext(Context context, java.util.function.BooleanSupplier read) {
        Promise<Boolean> value = Promise.promise();
        context.runOnContext(v -> value.complete(read.getAsBoolean()));
        return Await.await(value.future());
    }
}
