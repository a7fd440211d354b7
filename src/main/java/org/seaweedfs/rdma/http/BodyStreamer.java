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
        Promise<Void> done = Promise.promise();
        response.closeHandler(v -> done.tryFail("client closed the connection"));
        response.exceptionHandler(done::tryFail);
        new Pump(response, pieces.iterator(), done).run();
        return done.future();
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
            response.end().onComplete(ar -> {
                if (ar.succeeded()) {
                    done.tryComplete();
                } else {
                    done.tryFail(ar.cause());
                }
            });
        }
    }
}
