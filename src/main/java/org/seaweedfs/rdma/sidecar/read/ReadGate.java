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
 * Runs each read on its caller's context and counts the outcomes; the read's deadline is its caller's. Reads come
 * here admitted: the face that received one bounds how many run at once. Thread-safe.
 */
final class ReadGate {

    private final Vertx vertx;
    private final ReadPathOptions options;
    private final ReadCounters counters;
    private final ReadPath path;

    ReadGate(Vertx vertx, ReadPathOptions options, ReadCounters counters, ReadPath path) {
        this.vertx = vertx;
        this.options = options;
        this.counters = counters;
        this.path = path;
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
