package org.seaweedfs.rdma.http;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import java.util.HashMap;
import java.util.Map;

/**
 * One HttpApiVerticle's connections (confined to its event loop): each takes a slot of the shared
 * {@link ConnectionBounds} or is closed at once, and each must deliver a request's headers within the
 * header timeout, counted from its start or from the end of its previous response (a stalled half-sent
 * header, a slow trickle of header bytes, a keep-alive connection that never sends its next request).
 * While a request is being answered no deadline runs; the idle timeout bounds a stalled transfer.
 */
final class HeaderDeadlines {

    private final Vertx vertx;
    private final ConnectionBounds bounds;
    private final Map<HttpConnection, Watched> connections = new HashMap<>();

    HeaderDeadlines(Vertx vertx, ConnectionBounds bounds) {
        this.vertx = vertx;
        this.bounds = bounds;
    }

    /** A connection was accepted. */
    void connected(HttpConnection connection) {
        if (!bounds.tryOpen()) {
            connection.close();
            return;
        }
        Watched watched = new Watched(connection);
        connections.put(connection, watched);
        connection.closeHandler(v -> {
            connections.remove(connection);
            watched.disarm();
            bounds.closed();
        });
        watched.arm();
    }

    /** A request's headers arrived on {@code connection}. */
    void requestStarted(HttpConnection connection) {
        Watched watched = connections.get(connection);
        if (watched != null) {
            watched.active++;
            watched.disarm();
        }
    }

    /** The response to a request of {@code connection} ended (or the request was abandoned). */
    void requestEnded(HttpConnection connection) {
        Watched watched = connections.get(connection);
        if (watched != null && watched.active > 0 && --watched.active == 0) {
            watched.arm();
        }
    }

    private final class Watched {
        final HttpConnection connection;
        int active;
        long timer = -1;

        Watched(HttpConnection connection) {
            this.connection = connection;
        }

        void arm() {
            disarm();
            timer = vertx.setTimer(bounds.headerTimeoutMillis(), id -> {
                timer = -1;
                bounds.headerTimedOut();
                connection.close();
            });
        }

        void disarm() {
            if (timer >= 0) {
                vertx.cancelTimer(timer);
                timer = -1;
            }
        }
    }
}
