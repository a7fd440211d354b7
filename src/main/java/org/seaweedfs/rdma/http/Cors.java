package org.seaweedfs.rdma.http;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * The volume server's CORS answers: every response to a request carrying {@code Origin} allows any origin, with
 * credentials; {@code OPTIONS} on any path answers 200 with the methods and headers its read-only (public)
 * port allows.
 */
final class Cors {

    static final String ALLOW_METHODS = "GET, OPTIONS";

    private Cors() {
    }

    /** Adds the CORS headers when the request names an origin; call before anything is answered. */
    static void apply(HttpServerRequest request) {
        if (!isEmpty(request.getHeader(HttpHeaders.ORIGIN))) {
            request.response()
                    .putHeader("Access-Control-Allow-Origin", "*")
                    .putHeader("Access-Control-Allow-Credentials", "true");
        }
    }

    /** {@code OPTIONS}: 200, no body. */
    static void preflight(RoutingContext ctx) {
        ctx.response()
                .putHeader("Access-Control-Allow-Methods", ALLOW_METHODS)
                .putHeader("Access-Control-Allow-Headers", "*")
                .putHeader("Content-Length", "0")
                .setStatusCode(200)
                .end();
    }

    private static boolean isEmpty(String s) {
        return s == null || s.isEmpty();
    }
}
