package org.seaweedfs.rdma.polling;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
class AwakeLoopTest {

    /** The loop polls after an answer and stops once the idle-poll time has passed with no answer; 0 never polls. */
    @Test
    void aWindowKeepsTheLoopPollingAfterAnAnswerThenLetsItSleep(Vertx vertx) throws Exception {
        Context context = vertx.getOrCreateContext();
        AwakeLoop window = new AwakeLoop(context, 2_000);
        AwakeLoop none = new AwakeLoop(context, 0);
        Promise<boolean[]> afterAnswer = Promise.promise();
        context.runOnContext(v -> {
            window.answered();
            none.answered();
            afterAnswer.complete(new boolean[] {window.polling(), none.polling()});
        });
        boolean[] polling = afterAnswer.future().await(10, TimeUnit.SECONDS);
        assertTrue(polling[0], "polling right after an answer");
        assertFalse(polling[1], "an idle-poll time of 0 never polls");
        Await.until("the window closes with no answer", () -> onContext(context, window::polling) == Boolean.FALSE);
    }

    @Test
    void theIdlePollTimeCountsFromTheLastEvent() {
        PollingPolicy idle = new PollingPolicy(20);
        idle.event(1_000_000);
        assertTrue(idle.polls(1_000_000 + 19_999));
        assertFalse(idle.polls(1_000_000 + 20_000));
        assertFalse(new PollingPolicy(0).polls(System.nanoTime()), "0: sleeps as soon as there is nothing to do");
        assertThrows(IllegalArgumentException.class, () -> new PollingPolicy(-1));
        assertThrows(IllegalArgumentException.class, () -> new PollingPolicy(PollingPolicy.MAX_MICROS + 1));
    }

    private static Boolean onContext(Context context, java.util.function.BooleanSupplier read) {
        Promise<Boolean> value = Promise.promise();
        context.runOnContext(v -> value.complete(read.getAsBoolean()));
        return Await.await(value.future());
    }
}
