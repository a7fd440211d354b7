package org.seaweedfs.rdma.sidecar.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The FIFO of reads waiting for a moment, driven by a hand-moved clock. */
@ExtendWith(VertxExtension.class)
class DueQueueTest {

    /** An entry: due at {@code at}, settled or not. */
    private static final class Entry {
        final long at;
        boolean settled;

        Entry(long at) {
            this.at = at;
        }
    }

    @Test
    void entriesFireInOrderWhenDueAndSettledOnesNever(Vertx vertx, VertxTestContext ctx) {
        ManualReadClock clock = new ManualReadClock();
        Context context = vertx.getOrCreateContext();
        List<Entry> fired = new ArrayList<>();
        long ms = 1_000_000;
        context.runOnContext(v -> {
            DueQueue<Entry> queue = new DueQueue<>(clock, context, e -> e.at, e -> e.settled, fired::add);
            long t0 = clock.nanoTime();
            Entry a = new Entry(t0 + 10 * ms);
            Entry b = new Entry(t0 + 20 * ms);
            Entry c = new Entry(t0 + 30 * ms);
            queue.add(a);
            queue.add(b);
            queue.add(c);
            assertEquals(1, clock.pending(), "one wake-up for the whole queue");
            b.settled = true;
            clock.advance(Duration.ofMillis(25))
                    .compose(x -> {
                        ctx.verify(() -> {
                            assertEquals(List.of(a), fired, "b settled before its time: dropped unseen");
                            assertEquals(1, clock.pending(), "the wake-up for c");
                        });
                        return clock.advance(Duration.ofMillis(5));
                    })
                    .onComplete(ctx.succeeding(x -> ctx.verify(() -> {
                        assertEquals(List.of(a, c), fired);
                        assertEquals(0, queue.queued());
                        assertEquals(0, clock.pending(), "nothing left to wake up for");
                        ctx.completeNow();
                    })));
        });
    }

    @Test
    void aQueueOfSettledReadsIsCompactedAndStaysBounded(Vertx vertx, VertxTestContext ctx) {
        ManualReadClock clock = new ManualReadClock();
        Context context = vertx.getOrCreateContext();
        context.runOnContext(v -> ctx.verify(() -> {
            DueQueue<Entry> queue = new DueQueue<>(clock, context, e -> e.at, e -> e.settled, e -> { });
            Entry head = new Entry(clock.nanoTime() + 1_000_000_000L); // a slow read at the head, never settled
            queue.add(head);
            for (int i = 0; i < 100_000; i++) {
                Entry e = new Entry(head.at);
                queue.add(e);
                e.settled = true;
            }
            assertEquals(true, queue.queued() <= 2 * 1024, "queued: " + queue.queued());
            ctx.completeNow();
        }));
    }
}
