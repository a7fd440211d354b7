package org.seaweedfs.rdma.http;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import org.seaweedfs.rdma.config.SidecarConfig;

/**
 * {@code POST /batch}: the body (at most {@code sidecar.batch.maxRequestBytes}, at most
 * {@code sidecar.batch.maxFids} lines, see {@link BatchRequest}) is read and checked whole, then answered with
 * {@code 200 application/x-tar} streamed by a {@link BatchStream}. A body too large or with too many fids answers
 * 413, a malformed line 400 naming it; neither reads anything.
 */
final class BatchHandler implements Handler<RoutingContext> {

    private final Vertx vertx;
    private final HttpApiContext api;
    private final JwtReadAuth auth;
    private final SidecarConfig.Batch bounds;

    BatchHandler(Vertx vertx, HttpApiContext api, JwtReadAuth auth) {
        this.vertx = vertx;
        this.api = api;
        this.auth = auth;
        this.bounds = api.batch();
    }

    @Override
    public void handle(RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        String declared = request.getHeader(HttpHeaders.CONTENT_LENGTH);
        if (declared != null && tooLarge(declared)) {
            refuse(request, 413, tooLargeText());
            return;
        }
        Buffer body = Buffer.buffer();
        boolean[] refused = {false};
        request.handler(chunk -> {
            if (refused[0]) {
                return;
            }
            if (body.length() + (long) chunk.length() > bounds.maxRequestBytes()) {
                refused[0] = true;
                refuse(request, 413, tooLargeText());
                return;
            }
            body.appendBuffer(chunk);
        });
        request.endHandler(v -> {
            if (!refused[0]) {
                answer(request, body);
            }
        });
        request.resume();
    }

    private boolean tooLarge(String contentLength) {
        try {
            return Long.parseLong(contentLength.trim()) > bounds.maxRequestBytes();
        } catch (NumberFormatException e) {
            return false; // Vert.x's codec refuses a malformed Content-Length before it gets here
        }
    }

    private String tooLargeText() {
        return "request body larger than " + bounds.maxRequestBytes() + " bytes (sidecar.batch.maxRequestBytes)";
    }

    private void answer(HttpServerRequest request, Buffer body) {
        BatchRequest batch;
        try {
            batch = BatchRequest.parse(body, bounds.maxFids());
        } catch (BatchRequest.Refused e) {
            refuse(request, e.status, e.getMessage());
            return;
        }
        new BatchStream(vertx, api, auth, bounds.window(), request, batch).start();
    }

    /** Answers {@code status} (no read made); a refused body's rest is not read, so the connection is closed. */
    private void refuse(HttpServerRequest request, int status, String message) {
        api.meters().recordRead("none", status == 413 ? "rejected" : "bad_request", 0);
        boolean unread = !request.isEnded();
        if (unread) {
            request.response().putHeader(HttpHeaders.CONNECTION, "close");
        }
        HttpErrors.send(request.response(), status, message).onComplete(v -> {
            if (unread) {
                request.connection().close();
            }
        });
    }
}
