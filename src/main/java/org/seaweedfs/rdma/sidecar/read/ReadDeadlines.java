package org.seaweedfs.rdma.sidecar.read;

import java.util.ArrayDeque;

/**
 * The deadlines of the reads of one gate that wait (their get did not complete inside its call), on one thread,
 * behind one timer. Every read of a gate has the same timeout, so deadlines fall due in the order reads are armed:
 * a FIFO whose head is the next to fall due replaces a Vert.x timer per read (a scheduled task, a map entry and a
 * cancel each). Reads that finish stay queued until they reach the head, where they are dropped unseen; a slow read
 * at the head cannot make the queue grow past about twice the reads in flight, as it is compacted when it doubles.
 *
 * <p>Confined to one thread: an event loop's (its contexts and their duplicates share it, and its timer is the event
 * loop's own, which no undeployed verticle takes with it), or a single read's on a worker context, which may run its
 * tasks on any thread of the pool.
 */
final class ReadDeadlines {

    /** The queue is never compacted below this length (finished reads are dropped from the head as it goes). */
    private static final int MIN_COMPACT_LENGTH = 1024;

    /** Runs a task on this queue's thread after a delay (ns); false when it cannot (the thread's loop is closing). */
    interface Timer {
        boolean schedule(long delayNanos, Runnable task);
    }

    private final Timer timer;
    private final Runnable expire = this::expire;
    private final long timeoutNanos;
    private final ArrayDeque<ReadAttempt> armed = new ArrayDeque<>();
    private int compactAt = MIN_COMPACT_LENGTH;
    private boolean timerSet;

    ReadDeadlines(Timer timer, long timeoutMs) {
        this.timer = timer;
        this.timeoutNanos = timeoutMs * 1_000_000;
    }

    /** On {@code read}'s context: it fails TIMEOUT unless it has finished by its deadline, the timeout from now. */
    void arm(ReadAttempt read) {
        read.deadlineNanos = System.nanoTime() + timeoutNanos;
        for (ReadAttempt head = armed.peek(); head != null && head.isDone(); head = armed.peek()) {
            armed.poll();
        }
        armed.add(read);
        if (armed.size() >= compactAt) {
            armed.removeIf(ReadAttempt::isDone);
            compactAt = Math.max(MIN_COMPACT_LENGTH, 2 * armed.size());
        }
        if (!timerSet) {
            schedule(timeoutNanos);
        }
    }

    /** Reads still armed (finished ones not yet dropped included); for tests. */
    int queued() {
        return armed.size();
    }

    private void schedule(long inNanos) {
        timerSet = timer.schedule(inNanos, expire);
    }

    /** Fails every read past its deadline, drops finished ones, and sets the timer for the next deadline. */
    private void expire() {
        timerSet = false;
        long now = System.nanoTime();
        for (ReadAttempt head = armed.peek(); head != null; head = armed.peek()) {
            if (!head.isDone()) {
                long left = head.deadlineNanos - now;
                if (left > 0) {
                    schedule(left);
                    return;
                }
                head.timedOut();
            }
            armed.poll();
        }
    }
}
