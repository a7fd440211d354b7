package org.seaweedfs.rdma.polling;

import io.vertx.core.Context;
import io.vertx.core.Handler;

/**
 * {@link PollingPolicy} for an event loop that answers requests (an HTTP verticle, the event-bus consumer): after each
 * answer the loop stays awake for the idle-poll time, with a task that queues itself again (a loop with a task queued
 * does not sleep), so the next request of a requester that sends one at a time finds it awake.
 *
 * <p>Confined to the verticle's event loop.
 */
public final class AwakeLoop {

    private final Context context;
    private final PollingPolicy idle;
    private final Handler<Void> poll = v -> poll();
    private boolean polling;
    private long answers; // answers after which the loop stayed awake; for tests

    public AwakeLoop(Context context, int idlePollMicros) {
        this.context = context;
        this.idle = new PollingPolicy(idlePollMicros);
    }

    /** An answer left: the loop stays awake for the idle-poll time from now. */
    public void answered() {
        if (idle.windowNanos() == 0) {
            return;
        }
        idle.event(System.nanoTime());
        answers++;
        if (!polling) {
            polling = true;
            context.runOnContext(poll);
        }
    }

    /** Whether the loop is being kept awake; for tests, on the loop. */
    public boolean polling() {
        return polling;
    }

    /** Answers after which the loop stayed awake; for tests, on the loop. */
    public long answers() {
        return answers;
    }

    private void poll() {
        if (idle.polls(System.nanoTime())) {
            idle.pause();
            context.runOnContext(poll);
        } else {
            polling = false;
        }
    }
}
