package org.seaweedfs.rdma.eventbus;

import io.vertx.core.Context;
import io.vertx.core.Handler;
import java.util.ArrayDeque;
import org.seaweedfs.rdma.polling.AwakeLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replies answered while the consumer's event loop works through the requests queued on it leave together, in a
 * task queued behind those requests. A requester on another event loop that keeps several requests in flight is
 * then woken once per batch instead of once per reply: every reply to a sleeping loop costs this loop a system call
 * (the wake-up) and the other a sleep and a wake. Replies keep their order; a request alone on the loop waits one
 * task for its reply. Kept because it earns its keep: see CHANGELOG.md, "One wake-up policy" (event bus, 64 in
 * flight).
 *
 * <p>Confined to the verticle's event loop: the read path completes every read on its caller's context.
 */
final class ReplyBatch {

    private static final Logger LOG = LoggerFactory.getLogger(ReplyBatch.class);

    private final Context context;
    private final AwakeLoop awake;
    private final ArrayDeque<Runnable> pending = new ArrayDeque<>();
    private final Handler<Void> flush = v -> flush();
    private boolean flushQueued;

    /** @param awake told when a batch left */
    ReplyBatch(Context context, AwakeLoop awake) {
        this.context = context;
        this.awake = awake;
    }

    /** Sends {@code reply} with the others answered before the loop gets to the flush task. */
    void add(Runnable reply) {
        pending.add(reply);
        if (!flushQueued) {
            flushQueued = true;
            context.runOnContext(flush);
        }
    }

    private void flush() {
        flushQueued = false;
        for (Runnable reply = pending.poll(); reply != null; reply = pending.poll()) {
            try {
                reply.run();
            } catch (RuntimeException e) { // one reply that cannot be sent must not hold back the others
                LOG.warn("An event-bus reply could not be sent: " + e, e);
            }
        }
        awake.answered();
    }
}
