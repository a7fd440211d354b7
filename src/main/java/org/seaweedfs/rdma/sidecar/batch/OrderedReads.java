package org.seaweedfs.rdma.sidecar.batch;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import java.util.List;
import java.util.function.IntFunction;
import org.seaweedfs.rdma.sidecar.NeedleContent;

/**
 * The reads of one call for many needles, handed on in request order, with at most {@code window} of them held at
 * once: started and not yet {@link #finished() finished} by the consumer. Reads are started a range at a time: the
 * whole window first, then, once half of it (at least one) is free, as many as fit, in one call of the
 * {@link Range}, so the read path admits, posts and verifies them as one batch. A failed read is that needle's result
 * only.
 *
 * <p>Confined to one context: the read path completes every read on its caller's context.
 */
public final class OrderedReads {

    /** Starts the reads of indexes {@code [from, to)} on the caller's context: one future per index, in order. */
    public interface Range {
        List<Future<NeedleContent>> read(int from, int to);
    }

    private final Range read;
    private final Future<NeedleContent>[] results;
    /** Whose completion handler has run (a completion from another thread reaches this context later). */
    private final boolean[] arrived;
    private final int window;
    private Handler<Void> ready = v -> { };
    private int started;
    private int next;
    private int held;
    private boolean cancelled;
    private boolean notifying;
    private boolean notifyAgain;

    /**
     * @param count  reads in all, index 0 first
     * @param window reads held at most (started, not yet finished)
     * @param read   starts the read of an index on the caller's context; it may fail at once
     */
    public OrderedReads(int count, int window, IntFunction<Future<NeedleContent>> read) {
        this(count, window, oneByOne(read));
    }

    /** Reads started one index at a time; one that throws fails its own index. */
    public static Range oneByOne(IntFunction<Future<NeedleContent>> read) {
        return (from, to) -> {
            Future<NeedleContent>[] some = newArray(to - from);
            for (int i = from; i < to; i++) {
                try {
                    some[i - from] = read.apply(i);
                } catch (RuntimeException e) {
                    some[i - from] = Future.failedFuture(e);
                }
            }
            return List.of(some);
        };
    }

    /**
     * @param count  reads in all, index 0 first
     * @param window reads held at most (started, not yet finished)
     * @param read   starts the reads of a range of indexes on the caller's context; each may fail at once
     */
    public OrderedReads(int count, int window, Range read) {
        if (window < 1) {
            throw new IllegalArgumentException("window must be at least 1, got " + window);
        }
        this.read = read;
        this.results = newArray(count);
        this.arrived = new boolean[count];
        this.window = window;
    }

    /** Called, on the caller's context, whenever the next result in order may have become {@link #ready()}. */
    public OrderedReads onReady(Handler<Void> handler) {
        this.ready = handler;
        return this;
    }

    /** Starts the first {@code window} reads, all in this pass. */
    public void start() {
        fill();
        if (ready()) {
            notifyReady();
        }
    }

    /** Whether the next result in order is complete. */
    public boolean ready() {
        return !cancelled && next < started && arrived[next];
    }

    /** Whether every result was taken. */
    public boolean done() {
        return next == results.length;
    }

    /** Results in all. */
    public int count() {
        return results.length;
    }

    /** Reads started and not yet finished (never above the window). */
    public int held() {
        return held;
    }

    /**
     * The next result in order (call only when {@link #ready()}); the consumer owns a successful one's content and
     * calls {@link #finished()} once it let it go.
     */
    public AsyncResult<NeedleContent> take() {
        if (!ready()) {
            throw new IllegalStateException("the next result is not ready");
        }
        Future<NeedleContent> result = results[next];
        results[next++] = null;
        return result;
    }

    /** One taken result is let go: its place in the window goes to the next reads once half the window is free. */
    public void finished() {
        held--;
        if (!cancelled && window - held >= Math.max(1, window / 2)) {
            fill();
        }
    }

    /** Starts no more reads; contents that arrive or wait untaken are released. Idempotent. */
    public void cancel() {
        if (cancelled) {
            return;
        }
        cancelled = true;
        for (int i = next; i < started; i++) {
            if (arrived[i]) {
                release(results[i]);
                held--;
            }
            // one still on its way is released when it arrives
            results[i] = null;
        }
    }

    private void fill() {
        int from = started;
        int to = Math.min(results.length, from + window - held);
        if (to <= from) {
            return;
        }
        started = to;
        held += to - from;
        List<Future<NeedleContent>> some;
        try {
            some = read.read(from, to);
        } catch (RuntimeException e) {
            some = null;
            for (int i = from; i < to; i++) {
                results[i] = Future.failedFuture(e);
            }
        }
        for (int i = from; i < to; i++) {
            if (some != null) {
                results[i] = some.get(i - from);
            }
            int index = i;
            results[i].onComplete(ar -> completed(index, ar));
        }
    }

    @SuppressWarnings("unchecked")
    private static Future<NeedleContent>[] newArray(int n) {
        return new Future[n];
    }

    private void completed(int index, AsyncResult<NeedleContent> ar) {
        arrived[index] = true;
        if (cancelled) {
            release(ar);
            held--;
            return;
        }
        if (index == next) {
            notifyReady();
        }
    }

    /** Tells the consumer; a completion while it is being told (a read that failed at once) tells it again after. */
    private void notifyReady() {
        if (notifying) {
            notifyAgain = true;
            return;
        }
        notifying = true;
        try {
            do {
                notifyAgain = false;
                ready.handle(null);
            } while (notifyAgain && ready());
        } finally {
            notifying = false;
        }
    }

    private static void release(AsyncResult<NeedleContent> result) {
        if (result.succeeded()) {
            result.result().release();
        }
    }
}
