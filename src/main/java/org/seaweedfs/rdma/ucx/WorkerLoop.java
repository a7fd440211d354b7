package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import org.seaweedfs.rdma.polling.PollingPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;

import java.util.ArrayList;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The dedicated thread that owns a {@link UcpWorker}. Other threads hand it {@link LoopTask}s; it runs them, calls
 * {@code progress()} until there is nothing left, keeps polling for the idle-poll time ({@link PollingPolicy}), then
 * sleeps in the kernel until UCX or a {@code signal()} wakes it. UCX callbacks therefore always run here, and nothing
 * they throw leaves the loop.
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
    private final PollingPolicy idle; // owner thread only
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

    /** {@code idlePollMicros}: keep polling this long after the last event before sleeping (0: sleep at once). */
    WorkerLoop(String name, int idlePollMicros) {
        this.name = name;
        this.idle = new PollingPolicy(idlePollMicros);
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
            idle.spin();
        }
        return true;
    }

    /**
     * Owner thread, inside a task: progresses until the policy's quiet time passes without a UCX event (counted again
     * from the last one), or for at most {@code maxMillis}. Returns whether any event happened meanwhile.
     */
    boolean progressQuietly(long maxMillis) {
        long quietMillis = idle.quietMillis();
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
                idle.pause();
            }
        }
        return any;
    }

    /** Owner thread: an operation was started (counted for diagnostics and tests). */
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
            // Work handed over before the worker existed (an agent opening volumes while UCX starts) fails with it.
            for (LoopTask task; (task = tasks.poll()) != null; ) {
                task.reject(new UcxTransportException("UCX worker could not start: " + e.getMessage()));
            }
            started.accept(e);
            return;
        }
        started.accept(null);
        while (running) {
            boolean busy = runTasks();
            busy |= progressAll();
            busy |= checkWatches();
            completions.flush();
            long now = System.nanoTime();
            if (busy || !running) {
                idle.event(now);
            } else if (idle.polls(now)) {
                idle.pause();
            } else {
                sleep();
            }
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

    private void sleep() {
        sleeping = true;
        try {
            if (!tasks.isEmpty()) {
                return;
            }
            // ucp_worker_wait arms the worker itself and returns at once when events are pending (UCS_ERR_BUSY). An
            // arm() of our own before it would arm twice per sleep, and JUCX reports BUSY as an exception, stack trace
            // and all, which a serving agent that sleeps between bursts would pay often.
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
