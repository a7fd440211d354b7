package org.seaweedfs.rdma.http;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import java.util.Iterator;
import java.util.List;

/**
 * Writes a body piece by piece, pausing while the connection's write queue is full. The returned
 * future completes when the last byte is flushed, or fails when the client goes away first; either
 * way the caller may then release the memory behind the pieces.
 */
final class BodyStreamer {

    private BodyStreamer() {
    }

    static Future<Void> stream(HttpServerResponse response, List<Buffer> pieces) {
        if (pieces.size() == 1) {
            // The common case: headers and body leave as one message, one pass through the pipeline. The end's own
            // future fails when the connection closes before the last byte is flushed, so it needs no handlers.
            return response.end(pieces.get(0));
        }
        Promise<Void> done = Promise.promise();
        response.closeHandler(v -> done.tryFail("client closed the connection"));
        response.exceptionHandler(done::tryFail);
        new Pump(response, pieces.iterator(), done).run();
        return done.future();
    }

    /** Completes {@code done} with the end's outcome unless the connection's handlers already settled it. */
    private static void settle(Future<Void> end, Promise<Void> done) {
        end.onComplete(ar -> {
            if (ar.succeeded()) {
                done.tryComplete();
            } else {
                done.tryFail(ar.cause());
            }
        });
    }

    private record Pump(HttpServerResponse response, Iterator<Buffer> pieces, Promise<Void> done) implements Runnable {
        @Override
        public void run() {
            while (pieces.hasNext()) {
                if (done.future().isComplete()) {
                    return;
                }
                if (response.writeQueueFull()) {
                    response.drainHandler(v -> run());
                    return;
                }
                response.write(pieces.next());
            }
            settle(response.end(), done);
        }
    }
}
