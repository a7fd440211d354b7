package org.seaweedfs.rdma.polling;

/**
 * The one rule that decides when a thread owning a UCX worker or a Vert.x event loop stops polling and sleeps: it
 * keeps polling for the idle-poll time after its last event (a UCX completion or message, a get issued, a request
 * answered), then sleeps until something wakes it. The agent's and the sidecar's UCX owner threads spin for it and
 * then wait in the kernel; the event-loop lanes and the loops that answer HTTP and the event bus stay awake for it
 * with a task that queues itself again, then let their loop wait in epoll. Staying awake catches the next request of
 * a steady stream without a thread wake-up on either side (a get served by a peer's thread, the next request of a
 * client reading one at a time); sleeping gives the core back to the clients and peers on the same host. Like
 * Seastar's idle-poll time, one setting ({@code idlePollMicros}) for all of them. Between two polls a thread yields
 * its core ({@link #pause()}): on a host with idle cores that costs a system call, on a busy one the threads that
 * have work (clients, the peer that must answer) run first, so polling never takes a core they need.
 *
 * <p>Confined to one thread.
 */
public final class IdlePoll {

    /**
     * The default: long enough for a same-host peer to answer an emulated get, or for a requester on another event
     * loop to send its next request (20 µs left one event-bus request at a time at twice the p50 of 50 µs: see
     * docs/performance.md, "One wake-up policy"); polling yields its core ({@link #pause()}), so a busy host loses
     * little to it.
     */
    public static final int DEFAULT_MICROS = 50;
    /** The largest setting: beyond a few milliseconds a thread would rather sleep. */
    public static final int MAX_MICROS = 10_000;

    private final long windowNanos;
    private long lastEventNanos;

    /** @param micros the idle-poll time; 0 sleeps as soon as there is nothing to do */
    public IdlePoll(int micros) {
        if (micros < 0 || micros > MAX_MICROS) {
            throw new IllegalArgumentException("idlePollMicros must be 0.." + MAX_MICROS + ", got " + micros);
        }
        this.windowNanos = micros * 1_000L;
        this.lastEventNanos = System.nanoTime() - windowNanos;
    }

    /** Something happened at {@code nowNanos}: the thread keeps polling for the idle-poll time from then. */
    public void event(long nowNanos) {
        lastEventNanos = nowNanos;
    }

    /** Whether the thread still polls at {@code nowNanos} (within the idle-poll time of its last event). */
    public boolean polls(long nowNanos) {
        return nowNanos - lastEventNanos < windowNanos;
    }

    /** Between two polls: lets any other runnable thread have this core first. */
    public static void pause() {
        Thread.yield();
    }

    /** The idle-poll time in nanoseconds. */
    public long windowNanos() {
        return windowNanos;
    }
}
