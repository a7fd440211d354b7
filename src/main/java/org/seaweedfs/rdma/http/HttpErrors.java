package org.seaweedfs.rdma.http;

import io.vertx.core.Future;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;

/** JSON error bodies: {@code {"error": "...", "code": N}}. */
final class HttpErrors {

    private HttpErrors() {
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
