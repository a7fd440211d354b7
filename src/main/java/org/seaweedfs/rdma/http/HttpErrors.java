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

    /**
     * A failed read: its code ({@link ReadFailure#codeOf}), its message, and {@code Retry-After}: the failure's own,
     * else 1 s on every 503 (unavailable for now: a lost agent is reconnected to within 250 ms at first).
     */
    static Future<Void> sendFailure(HttpServerResponse response, Throwable failure) {
        int code = ReadFailure.codeOf(failure);
        int retryAfter = failure instanceof ReadFailure rf && rf.retryAfterSeconds() > 0 ? rf.retryAfterSeconds()
                : code == 503 ? 1 : 0;
        if (retryAfter > 0 && !response.headWritten()) {
            response.putHeader(HttpHeaders.RETRY_AFTER, Integer.toString(retryAfter));
        }
        return send(response, code, failure.getMessage());
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
