package org.seaweedfs.rdma.polling;

/**
 * Every decision of when a thread that owns a UCX worker or a Vert.x event loop polls, spins, yields or sleeps, and
 * every constant behind them. One instance per thread (it keeps the time of that thread's last event).
 *
 * <p>The rule: a thread keeps polling for the idle-poll time after its last event (a UCX completion or message, a get
 * issued, a request answered), then sleeps until something wakes it. The agent's and the sidecar's UCX owner threads
 * spin for it and then wait in the kernel; the event-loop lanes and the loops that answer HTTP and the event bus stay
 * awake for it with a task due at once that sets itself again, which the loop runs once per pass, after a
 * non-blocking look at its sockets (a task queued again would run again in the same pass, the sockets unread), then
 * let their loop wait in epoll. Staying awake catches the next request of a steady stream without a thread wake-up
 * on either side (a get served by a peer's thread, the next
 * request of a client reading one at a time); sleeping gives the core back to the clients and peers on the same
 * host. Like Seastar's idle-poll time, one setting ({@code idlePollMicros}) for all of them. Between two polls a
 * thread yields its core ({@link #pause()}): on a host with idle cores that costs a system call, on a busy one the
 * threads that have work (clients, the peer that must answer) run first, so polling never takes a core they need.
 *
 * <p>An event loop cannot wait on UCX's file descriptor, so its lanes add three bounded decisions: how often a get
 * just issued is progressed in its own call ({@link #progressCallsOnIssue()}), how many completions may run inside
 * their issuing calls between two polling tasks ({@link #syncCompletions()}), and how a lane polls for gets still in
 * flight past the idle-poll time ({@link #timerPollNanos()}) and for wire-up and keepalive
 * ({@link #housekeepingMillis()}). A worker being closed serves its peers until they are quiet
 * ({@link #quietMillis()}); every wait of a close (a worker's flush and its peers, a channel, a lane's gets in flight)
 * ends after {@link #CLOSE_TIMEOUT_MS} at the most.
 *
 * <p>Its constants, and why each one is its own: the idle-poll time ({@link #DEFAULT_MICROS}, bounded by
 * {@link #MAX_MICROS}) is the one setting; the three lane bounds are counts, not times, each bounding another thing
 * (the progress calls of an issuing call, those of a polling pass, a chain of completions); the timer poll's floor
 * keeps a zero idle-poll time from rescheduling at once; housekeeping is UCX's wire-up and keepalive pace, far above
 * any idle-poll time; the quiet time and the close bound are shutdown only (a lane drains for half the close bound,
 * so that its endpoints and worker still close within it).
 *
 * <p>Confined to one thread.
 */
public final class PollingPolicy {

    /**
     * The default idle-poll time: long enough for a same-host peer to answer an emulated get, or for a requester on
     * another event loop to send its next request (20 µs left one event-bus request at a time at twice the p50 of
     * 50 µs); polling yields its core ({@link #pause()}), so a busy host loses little to it.
     */
    public static final int DEFAULT_MICROS = 50;
    /** The largest setting: beyond a few milliseconds a thread would rather sleep. */
    public static final int MAX_MICROS = 10_000;

    /** progress() calls right after a lane get is issued, before the polling task takes over. */
    private static final int PROGRESS_ON_ISSUE = 4;
    /** progress() calls in one pass at most, so an event loop gets back to its I/O. */
    private static final int MAX_PROGRESS_PER_PASS = 64;
    /**
     * Gets completed inside their issuing call between two polling tasks. A caller that chains gets (issues the next
     * one in the completion of the last) recurses once per get; past this, its completions wait for the polling task
     * (queued behind the loop's other work), which bounds the stack and lets the loop serve that work.
     */
    private static final int SYNC_COMPLETIONS = 32;
    /** The shortest spacing of timer polls for gets still in flight past the idle-poll time (with it 0, too). */
    private static final long MIN_TIMER_POLL_NANOS = 10_000;
    /** How often a lane worker with lanes progresses while idle: wire-up, keepalive and error events. */
    private static final long HOUSEKEEPING_MS = 100;
    /** A closing worker stops serving its peers once nothing arrived for this long after its flush. */
    private static final long QUIET_MS = 50;
    /**
     * The longest any close waits: a UCX worker for its flush and its peers, a channel for its endpoint, the
     * event-loop lanes for their gets in flight (half of it) and their endpoints.
     */
    public static final long CLOSE_TIMEOUT_MS = 5_000;

    private final long windowNanos;
    private long lastEventNanos;

    /** @param micros the idle-poll time; 0 sleeps as soon as there is nothing to do */
    public PollingPolicy(int micros) {
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
    public void pause() {
        Thread.yield();
    }

    /** Between two polls of a wait that must end soon (a flush while closing): stays on the core. */
    public void spin() {
        Thread.onSpinWait();
    }

    /** The idle-poll time in nanoseconds. */
    public long windowNanos() {
        return windowNanos;
    }

    public int progressCallsOnIssue() {
        return PROGRESS_ON_ISSUE;
    }

    public int maxProgressPerPass() {
        return MAX_PROGRESS_PER_PASS;
    }

    public int syncCompletions() {
        return SYNC_COMPLETIONS;
    }

    /** How long a lane waits before polling again for gets still in flight past the idle-poll time. */
    public long timerPollNanos() {
        return Math.max(MIN_TIMER_POLL_NANOS, windowNanos);
    }

    public long housekeepingMillis() {
        return HOUSEKEEPING_MS;
    }

    public long quietMillis() {
        return QUIET_MS;
    }
}
