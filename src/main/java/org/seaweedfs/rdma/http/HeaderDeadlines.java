package org.seaweedfs.rdma.http;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One HttpApiVerticle's connections (confined to its event loop): each takes a slot of the shared
 * {@link ConnectionBounds} or is closed at once, and each must deliver a request's headers within the
 * header timeout, counted from its start or from the end of its previous response (a stalled half-sent
 * header, a slow trickle of header bytes, a keep-alive connection that never sends its next request).
 * While a request is being answered no deadline runs; the idle timeout bounds a stalled transfer.
 *
 * <p>One sweep per {@link #sweepMillis} checks every idle connection instead of a timer per request: setting and
 * cancelling a Vert.x timer for every request cost about 8 % of the sidecar's Java time on the 4 KiB read path.
 * A connection is closed between the timeout and the timeout plus one sweep.
 */
final class HeaderDeadlines {

    private final Vertx vertx;
    private final ConnectionBounds bounds;
    private final Map<HttpConnection, Watched> connections = new HashMap<>();
    private final long timeoutNanos;
    private final long sweepMillis;
    private long sweeper = -1;

    HeaderDeadlines(Vertx vertx, ConnectionBounds bounds) {
        this.vertx = vertx;
        this.bounds = bounds;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(bounds.headerTimeoutMillis());
        // An eighth of the timeout, within [5 ms, 1 s]: a 60 s timeout fires within 61 s, a short one within 1/8 more.
        this.sweepMillis = Math.max(5, Math.min(1000, bounds.headerTimeoutMillis() / 8));
    }

    /** A connection was accepted. */
    void connected(HttpConnection connection) {
        if (!bounds.tryOpen()) {
            connection.close();
            return;
        }
        connections.put(connection, new Watched(connection, System.nanoTime()));
        connection.closeHandler(v -> {
            connections.remove(connection);
            bounds.closed();
        });
        if (sweeper < 0) {
            sweeper = vertx.setPeriodic(sweepMillis, id -> sweep());
        }
    }

    /** A request's headers arrived on {@code connection}. */
    void requestStarted(HttpConnection connection) {
        Watched watched = connections.get(connection);
        if (watched != null) {
            watched.active++;
        }
    }

    /** The response to a request of {@code connection} ended (or the request was abandoned). */
    void requestEnded(HttpConnection connection) {
        Watched watched = connections.get(connection);
        if (watched != null && watched.active > 0 && --watched.active == 0) {
            watched.idleSinceNanos = System.nanoTime();
        }
    }

    /** This verticle's open connections. */
    int open() {
        return connections.size();
    }

    private void sweep() {
        if (connections.isEmpty()) {
            vertx.cancelTimer(sweeper);
            sweeper = -1;
            return;
        }
        long now = System.nanoTime();
        List<Watched> expired = new ArrayList<>();
        for (Watched watched : connections.values()) {
            if (watched.active == 0 && !watched.closing && now - watched.idleSinceNanos >= timeoutNanos) {
                expired.add(watched);
            }
        }
        for (Watched watched : expired) {
            watched.closing = true; // counted once; its close handler removes it and frees its slot
            bounds.headerTimedOut();
            watched.connection.close();
        }
    }

    private static final class Watched {
        final HttpConnection connection;
        int active;
        long idleSinceNanos;
        boolean closing;

        Watched(HttpConnection connection, long idleSinceNanos) {
            this.connection = connection;
            this.idleSinceNanos = idleSinceNanos;
        }
    }
}
