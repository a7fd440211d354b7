package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;

import java.util.ArrayList;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The dedicated thread that owns a {@link UcpWorker}. Other threads hand it {@link LoopTask}s; it runs them, calls
 * {@code progress()} until there is nothing left, spins a little, then arms the worker and sleeps until UCX or a
 * {@code signal()} wakes it. UCX callbacks therefore always run here, and nothing they throw leaves the loop.
 */
final class WorkerLoop {

    private static final Logger log = LoggerFactory.getLogger(WorkerLoop.class);

    /** Creates the UCX objects on the owner thread; returns the worker the loop progresses. */
    interface Setup {
        UcpWorker open() throws Exception;
    }

    /** Releases the UCX objects on the owner thread once the loop is over (the worker will not be touched again). */
    interface Teardown {
        void close(UcpWorker worker);
    }

    private final String name;
    private final int spinIterations;
    private final long idleSpinNanos;
    /**
     * While serving, the loop yields its core once per {@value} ns of idle spinning and pauses the CPU
     * ({@code Thread.onSpinWait}) in between: yielding on every pass sent a third of a serving agent's CPU to the
     * scheduler, never yielding keeps the core from the event loops beside it. Counted
     * in time, not passes: a pass costs a few hundred ns, or microseconds when a TCP lane makes progress poll sockets.
     */
    static final long SERVING_YIELD_NANOS = 10_000;
    private long lastYield; // owner thread only
    private final Queue<LoopTask> tasks = new ConcurrentLinkedQueue<>();
    private final CompletionBatch completions = new CompletionBatch();
    private final ArrayList<Watch> watches = new ArrayList<>();
    private final Object signalLock = new Object();
    private volatile boolean accepting = true;
    private volatile boolean sleeping;
    private boolean workerClosed; // guarded by signalLock
    private boolean running = true; // owner thread only
    private int outstanding; // owner thread only: operations started on this worker and not finished yet
    private UcpWorker worker;
    private Thread thread;

    private record Watch(UcpRequest request, Runnable onDone, long deadlineNanos) {
    }

    WorkerLoop(String name, int spinIterations) {
        this(name, spinIterations, 0);
    }

    /** {@code idleSpinMicros}: keep polling this long after the last event before sleeping (0: sleep at once). */
    WorkerLoop(String name, int spinIterations, int idleSpinMicros) {
        this.name = name;
        this.spinIterations = spinIterations;
        this.idleSpinNanos = idleSpinMicros * 1_000L;
    }

    /** Starts the owner thread; {@code started} runs on it once the worker exists (or with the failure). */
    void start(Setup setup, Teardown teardown, java.util.function.Consumer<Throwable> started) {
        thread = new Thread(() -> run(setup, teardown, started), name);
        thread.setDaemon(true);
        thread.start();
    }

    Thread thread() {
        return thread;
    }

    boolean onLoopThread() {
        return Thread.currentThread() == thread;
    }

    /** Queues a task for the owner thread (any thread). If the loop has stopped, the task is rejected instead. */
    void execute(LoopTask task) {
        tasks.add(task);
        if (!accepting) {
            if (tasks.remove(task)) {
                task.reject(stoppedException());
            }
            return;
        }
        if (sleeping) {
            wake();
        }
    }

    /** Hands a completion to a Vert.x context at the end of this pass (owner thread only). */
    void complete(Context context, Runnable action) {
        completions.add(context, action);
    }

    /** Runs {@code onDone} on the owner thread once UCX completes {@code request} (or after the timeout). */
    void watch(UcpRequest request, long timeoutMillis, Runnable onDone) {
        if (request == null || request.isCompleted()) {
            onDone.run();
        } else {
            watches.add(new Watch(request, onDone, System.nanoTime() + timeoutMillis * 1_000_000L));
        }
    }

    /** Owner thread, inside a task: progress until {@code done} holds or the time is up. Returns whether it holds. */
    boolean progressUntil(java.util.function.BooleanSupplier done, long timeoutMillis) {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            progressAll();
            checkWatches();
            completions.flush();
            Thread.onSpinWait();
        }
        return true;
    }

    /**
     * Owner thread, inside a task: progresses until {@code quietMillis} pass without a UCX event (counted again from
     * the last one), or for at most {@code maxMillis}. Returns whether any event happened meanwhile.
     */
    boolean progressQuietly(long quietMillis, long maxMillis) {
        boolean any = false;
        long start = System.nanoTime();
        long quietSince = start;
        while (System.nanoTime() - quietSince < quietMillis * 1_000_000L
                && System.nanoTime() - start < maxMillis * 1_000_000L) {
            boolean busy = progressAll();
            busy |= checkWatches();
            completions.flush();
            if (busy) {
                any = true;
                quietSince = System.nanoTime();
            } else {
                Thread.yield();
            }
        }
        return any;
    }

    /** Owner thread: an operation was started (the loop spins for completions while any is in flight). */
    void operationStarted() {
        outstanding++;
    }

    /** Owner thread: an operation counted by {@link #operationStarted()} finished. */
    void operationFinished() {
        outstanding--;
    }

    /** Owner thread: operations in flight (for tests). */
    int outstanding() {
        return outstanding;
    }

    /** Owner thread: ends the loop after the current pass. */
    void stopAfterThisPass() {
        running = false;
    }

    static UcxTransportException stoppedException() {
        return new UcxTransportException("UCX worker is stopped");
    }

    private void wake() {
        synchronized (signalLock) {
            if (!workerClosed) {
                worker.signal();
            }
        }
    }

    private void run(Setup setup, Teardown teardown, java.util.function.Consumer<Throwable> started) {
        try {
            worker = setup.open();
        } catch (Throwable e) {
            accepting = false;
            started.accept(e);
            return;
        }
        started.accept(null);
        int idle = 0;
        long lastEvent = 0;
        while (running) {
            boolean busy = runTasks();
            busy |= progressAll();
            busy |= checkWatches();
            completions.flush();
            if (busy || !running) {
                idle = 0;
                if (idleSpinNanos > 0) {
                    lastEvent = System.nanoTime();
                }
                continue;
            }
            // Spin only while one of our operations (or a watched close) is in flight: its completion is what the
            // spin waits for. With none (an agent whose memory peers read, an idle sidecar) sleep at once: new work
            // wakes the worker, and spinning would burn the core the event loops need.
            if ((outstanding > 0 || !watches.isEmpty()) && idle++ < spinIterations) {
                // Yield rather than busy-wait: the threads this loop completes to (event loops) may need this core.
                Thread.yield();
                continue;
            }
            // Serving mode (ProgressPlan): a worker whose memory peers read by emulated gets (no RDMA) serves each
            // get itself; under a steady stream the next request arrives within microseconds, and polling a little
            // longer catches it without an epoll wake-up (the C reference's agent loop does the same).
            long now;
            if (idleSpinNanos > 0 && (now = System.nanoTime()) - lastEvent < idleSpinNanos) {
                if (yieldsNow(now, lastYield)) {
                    Thread.yield();
                    lastYield = now;
                } else {
                    Thread.onSpinWait();
                }
                continue;
            }
            idle = 0;
            sleep();
        }
        accepting = false;
        for (LoopTask task; (task = tasks.poll()) != null; ) {
            task.reject(stoppedException());
        }
        completions.flush();
        synchronized (signalLock) {
            workerClosed = true;
        }
        teardown.close(worker);
    }

    /** Whether an idle pass of a serving loop at {@code now} yields the core, the last yield being at {@code lastYield}. */
    static boolean yieldsNow(long now, long lastYield) {
        return now - lastYield >= SERVING_YIELD_NANOS;
    }

    private void sleep() {
        sleeping = true;
        try {
            if (!tasks.isEmpty()) {
                return;
            }
            // ucp_worker_wait arms the worker itself and returns at once when events are pending (UCS_ERR_BUSY). An
            // arm() of our own before it armed twice per sleep, and JUCX reports BUSY as an exception, stack trace
            // and all: on a serving agent that sleeps between bursts, both were measurable.
            worker.waitForEvents();
        } catch (RuntimeException e) {
            log.warn("UCX worker wait failed on " + name, e);
        } finally {
            sleeping = false;
        }
    }

    private boolean runTasks() {
        boolean any = false;
        // Not past a task that stopped the loop: one queued after the shutdown (say a registration) must be rejected,
        // not run on a worker whose memory was already released (the context would be destroyed with it mapped).
        for (LoopTask task; running && (task = tasks.poll()) != null; ) {
            any = true;
            try {
                task.runOnLoop();
            } catch (Throwable e) {
                log.error("UCX loop task failed on " + name, e);
            }
        }
        return any;
    }

    private boolean progressAll() {
        boolean any = false;
        try {
            while (worker.progress() > 0) {
                any = true;
            }
        } catch (Throwable e) {
            log.error("UCX progress raised an error on " + name, e);
        }
        return any;
    }

    private boolean checkWatches() {
        if (watches.isEmpty()) {
            return false;
        }
        boolean any = false;
        long now = System.nanoTime();
        for (int i = watches.size() - 1; i >= 0; i--) {
            Watch w = watches.get(i);
            boolean timedOut = now - w.deadlineNanos > 0;
            if (w.request.isCompleted() || timedOut) {
                watches.remove(i);
                if (timedOut && !w.request.isCompleted()) {
                    log.warn("UCX request did not complete in time on " + name + "; going on without it");
                }
                any = true;
                try {
                    w.onDone.run();
                } catch (Throwable e) {
                    log.error("UCX completion watcher failed on " + name, e);
                }
            }
        }
        return any;
    }

    /** Owner thread: whether watched requests are still outstanding. */
    boolean hasWatches() {
        return !watches.isEmpty();
    }
}
