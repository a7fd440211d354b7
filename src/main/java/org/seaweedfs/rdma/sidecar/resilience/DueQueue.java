package org.seaweedfs.rdma.sidecar.resilience;

import io.vertx.core.Context;
import java.util.ArrayDeque;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * Reads waiting for a moment (their hedge, their deadline) on one thread, behind one wake-up. Reads of one queue wait
 * the same time, so they fall due in the order they were added: a FIFO whose head is the next due replaces a timer
 * per read (a scheduled task and a cancel each). Reads settled meanwhile stay queued until they reach the head, where
 * they are dropped unseen; the queue is compacted when it doubles, so it stays within about twice the reads waiting.
 * When the wait shortens (a hedge delay that fell), a read behind the head falls due late by at most the difference.
 *
 * <p>Confined to one thread: an event loop's (its contexts share it), or one read's on a worker context.
 */
final class DueQueue<E> {

    /** The queue is never compacted below this length (settled reads are dropped from the head as it goes). */
    private static final int MIN_COMPACT_LENGTH = 1024;

    private final ReadClock clock;
    private final Context context;
    private final ToLongFunction<E> due;
    private final Predicate<E> settled;
    private final Consumer<E> fire;
    private final Runnable expire = this::expire;
    private final ArrayDeque<E> queued = new ArrayDeque<>();
    private int compactAt = MIN_COMPACT_LENGTH;
    /** No wake-up is pending. */
    private boolean woken = true;

    /**
     * @param context whose thread the queue lives on (any context of an event loop)
     * @param due     when an entry falls due (clock time), read when it is added and at the head
     * @param settled whether an entry needs its moment no more
     * @param fire    called on the queue's thread for an entry that fell due unsettled
     */
    DueQueue(ReadClock clock, Context context, ToLongFunction<E> due, Predicate<E> settled, Consumer<E> fire) {
        this.clock = clock;
        this.context = context;
        this.due = due;
        this.settled = settled;
        this.fire = fire;
    }

    /** On the queue's thread: {@code entry} fires at its due time unless settled by then. */
    void add(E entry) {
        for (E head = queued.peek(); head != null && settled.test(head); head = queued.peek()) {
            queued.poll();
        }
        queued.add(entry);
        if (queued.size() >= compactAt) {
            queued.removeIf(settled);
            compactAt = Math.max(MIN_COMPACT_LENGTH, 2 * queued.size());
        }
        if (woken) {
            wakeUp(due.applyAsLong(entry));
        }
    }

    /** Entries still queued (settled ones not yet dropped included); for tests. */
    int queued() {
        return queued.size();
    }

    private void wakeUp(long at) {
        woken = !clock.schedule(context, Math.max(0, at - clock.nanoTime()), expire);
    }

    /** Fires every entry that fell due, drops settled ones, and sets the wake-up for the next. */
    private void expire() {
        woken = true;
        long now = clock.nanoTime();
        for (E head = queued.peek(); head != null; head = queued.peek()) {
            if (!settled.test(head)) {
                long at = due.applyAsLong(head);
                if (at - now > 0) {
                    wakeUp(at);
                    return;
                }
                queued.poll();
                fire.accept(head);
                continue;
            }
            queued.poll();
        }
    }
}
