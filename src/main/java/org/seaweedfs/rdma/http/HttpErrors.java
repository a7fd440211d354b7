package org.seaweedfs.rdma.http;

import io.vertx.core.Future;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import org.seaweedfs.rdma.sidecar.ReadFailure;

/** JSON error bodies: {@code {"error": "...", "code": N}}. */
final class HttpErrors {

    private HttpErrors() {
    }

    /** A failed read: its code ({@link ReadFailure#codeOf}), its message, and {@code Retry-After} when it gives one. */
    static Future<Void> sendFailure(HttpServerResponse response, Throwable failure) {
        if (failure instanceof ReadFailure rf && rf.retryAfterSeconds() > 0 && !response.headWritten()) {
            response.putHeader(HttpHeaders.RETRY_AFTER, Integer.toString(rf.retryAfterSeconds()));
        }
        return send(response, ReadFailure.codeOf(failure), failure.getMessage());
    }

    static Future<Void> send(HttpServerResponse response, int code, String message) {
        if (response.ended()) {
            return Future.succeededFuture();
        }
        if (response.headWritten()) {
            // Too late for a status: cut the body short so the client sees a truncated response.
            response.reset();
            return Future.succeededFuture();
        }
        return response.setStatusCode(code)
                .putHeader("Content-Type", "application/json")
                .end(new JsonObject().put("error", message == null ? "error" : message).put("code", code).encode());
    }
}
