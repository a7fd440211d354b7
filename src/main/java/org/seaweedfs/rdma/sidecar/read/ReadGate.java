package org.seaweedfs.rdma.sidecar.read;

import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPath;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.seaweedfs.rdma.volume.FileId;

/**
 * Admits reads up to the in-flight bound (refusing the rest at once, never queueing), runs each on its caller's
 * context, and counts the outcomes. Thread-safe.
 */
final class ReadGate {

    private final Vertx vertx;
    private final ReadPathOptions options;
    private final ReadCounters counters;
    private final ReadPath path;
    private final AtomicInteger inFlight = new AtomicInteger();

    ReadGate(Vertx vertx, ReadPathOptions options, ReadCounters counters, ReadPath path) {
        this.vertx = vertx;
        this.options = options;
        this.counters = counters;
        this.path = path;
    }

    /** Starts {@code body} on the caller's context (a new one for a non-Vert.x thread); fails at once when full. */
    Future<NeedleContent> start(FileId fid, Consumer<ReadAttempt> body) {
        counters.started();
        Context current = Vertx.currentContext();
        Context context = VertxInternals.callerContext(vertx);
        if (inFlight.incrementAndGet() > options.maxInFlight()) {
            inFlight.decrementAndGet();
            counters.failed(ReadFailure.Kind.UNAVAILABLE);
            return VertxInternals.onCallerContext(vertx, Future.failedFuture(ReadFailure.overloaded(path.wire
                    + " read path is overloaded: " + options.maxInFlight() + " reads in flight")));
        }
        ReadAttempt attempt = new ReadAttempt(this, fid, context);
        if (current == context) {
            attempt.begin(body);
        } else {
            context.runOnContext(v -> attempt.begin(body));
        }
        return attempt.future();
    }

    int inFlight() {
        return inFlight.get();
    }

    void finished() {
        inFlight.decrementAndGet();
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
