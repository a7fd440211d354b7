package org.seaweedfs.rdma.sidecar;

import io.vertx.core.Context;
import io.vertx.core.Handler;

/**
 * Keeps an event loop that answers requests (the event-bus consumer, an HTTP verticle) polling for a short window
 * after it answered, instead of sleeping at once: the next request of a requester that sends one at a time (it sends
 * as soon as its reply arrives) then finds the loop awake and waits for one thread wake-up per round trip, its own,
 * instead of two. The window restarts with every answer, so a steady stream of requests keeps the loop awake and an
 * idle one lets it sleep a window after the last answer. The price is a core polling for up to the window after each
 * answer ({@code sidecar.eventBusAwakeMicros}, {@code http.awakeMicros}; 0 sleeps at once).
 *
 * <p>Confined to the verticle's event loop.
 */
public final class AwakeWindow {

    private final Context context;
    private final long windowNanos;
    private final Handler<Void> poll = v -> poll();
    private long lastAnswerNanos;
    private boolean polling;

    public AwakeWindow(Context context, long windowMicros) {
        this.context = context;
        this.windowNanos = windowMicros * 1_000;
    }

    /** An answer left: the window starts again from now. */
    public void answered() {
        if (windowNanos == 0) {
            return;
        }
        lastAnswerNanos = System.nanoTime();
        if (!polling) {
            polling = true;
            context.runOnContext(poll);
        }
    }

    /** Whether the loop is being kept awake; for tests. */
    public boolean polling() {
        return polling;
    }

    /** A task that queues itself again until the window is over: a loop with a task queued does not sleep. */
    private void poll() {
        if (System.nanoTime() - lastAnswerNanos < windowNanos) {
            context.runOnContext(poll);
        } else {
            polling = false;
        }
    }
}
