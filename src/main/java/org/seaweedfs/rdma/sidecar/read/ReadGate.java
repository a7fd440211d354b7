package org.seaweedfs.rdma.sidecar.read;

import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.ReadPath;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.function.Consumer;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.seaweedfs.rdma.volume.FileId;

/**
 * Runs each read on its caller's context with a deadline ({@link ReadDeadlines}) and counts the outcomes. Reads
 * come here admitted: the face that received one bounds how many run at once. Thread-safe.
 */
final class ReadGate {

    private final Vertx vertx;
    private final ReadPathOptions options;
    private final ReadCounters counters;
    private final ReadPath path;
    private final ThreadLocal<ReadDeadlines> loopDeadlines;

    ReadGate(Vertx vertx, ReadPathOptions options, ReadCounters counters, ReadPath path) {
        this.vertx = vertx;
        this.options = options;
        this.counters = counters;
        this.path = path;
        this.loopDeadlines = new ThreadLocal<>();
    }

    /** Starts {@code body} on the caller's context (a new one for a non-Vert.x thread). */
    Future<NeedleContent> start(FileId fid, Consumer<ReadAttempt> body) {
        counters.started();
        Context current = Vertx.currentContext();
        Context context = VertxInternals.callerContext(vertx);
        ReadAttempt attempt = new ReadAttempt(this, fid, context);
        if (current == context) {
            attempt.begin(body);
        } else {
            context.runOnContext(v -> attempt.begin(body));
        }
        return attempt.future();
    }

    /**
     * On {@code context}: where its reads' deadlines are kept. An event loop's contexts share its thread's; a worker
     * context's tasks may run on any pool thread, so each of its reads has its own.
     */
    ReadDeadlines deadlines(Context context) {
        if (!context.isEventLoopContext()) {
            return new ReadDeadlines((delay, task) -> vertx.setTimer(Math.max(1, (delay + 999_999) / 1_000_000),
                    t -> task.run()) >= 0, options.readTimeoutMs());
        }
        ReadDeadlines deadlines = loopDeadlines.get();
        if (deadlines == null) {
            deadlines = new ReadDeadlines((delay, task) -> VertxInternals.schedule(context, task, delay),
                    options.readTimeoutMs());
            loopDeadlines.set(deadlines);
        }
        return deadlines;
    }

    ReadPathOptions options() {
        return options;
    }

    ReadCounters counters() {
        return counters;
    }

    ReadPath path() {
        return path;
    }
}
