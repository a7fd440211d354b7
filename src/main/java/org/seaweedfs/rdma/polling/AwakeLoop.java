package org.seaweedfs.rdma.polling;

import io.vertx.core.Context;
import org.seaweedfs.rdma.internals.VertxInternals;

/**
 * {@link PollingPolicy} for an event loop that answers requests (an HTTP verticle, the event-bus consumer): after each
 * answer the loop stays awake for the idle-poll time, with a task due at once that sets itself again (a loop with a
 * task due does not sleep), so the next request of a requester that sends one at a time finds it awake. The task is
 * scheduled, not queued: the loop runs a queued task that queues itself again in the same pass, with no look at its
 * sockets in between, but takes scheduled tasks once per pass, so each run follows a check of the sockets (a
 * non-blocking epoll). While answers keep coming between two runs the loop is busy, not polling: the task then sets
 * itself again with no clock read and no yield, and the idle-poll time starts when a run finds no new answer.
 *
 * <p>Confined to the verticle's event loop.
 */
public final class AwakeLoop {

    private final Context context;
    private final PollingPolicy idle;
    private final Runnable poll = this::poll;
    private boolean polling;
    private boolean busy; // answers came since the task's last run
    private long answers; // answers after which the loop stayed awake; for tests
    private long seen; // answers when the task last ran

    public AwakeLoop(Context context, int idlePollMicros) {
        this.context = context;
        this.idle = new PollingPolicy(idlePollMicros);
    }

    /** An answer left: the loop stays awake for the idle-poll time from now. */
    public void answered() {
        if (idle.windowNanos() == 0) {
            return;
        }
        answers++;
        if (!polling) {
            polling = VertxInternals.schedule(context, poll, 0);
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
        if (answers != seen) { // busy: the loop had work since the last run
            seen = answers;
            busy = true;
            polling = VertxInternals.schedule(context, poll, 0);
            return;
        }
        long now = System.nanoTime();
        if (busy) { // the first run without a new answer: the idle-poll time starts now
            busy = false;
            idle.event(now);
        }
        if (idle.polls(now)) {
            idle.pause();
            polling = VertxInternals.schedule(context, poll, 0);
        } else {
            polling = false;
        }
    }
}
