package org.seaweedfs.rdma.http;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One HttpApiVerticle's connections (confined to its event loop) and both of their deadlines:
 * <ul>
 *   <li>each takes a slot of the shared {@link ConnectionBounds} or is closed at once;</li>
 *   <li>between requests (from its start, or from the end of its previous response) it must deliver the next
 *       request's headers within the header timeout, and is closed after the idle timeout if that is shorter
 *       (a stalled half-sent header, a trickle of header bytes, a keep-alive connection that never sends again);</li>
 *   <li>while a request is being answered, the request's bytes read plus its response's bytes written must move
 *       within the idle timeout (a stalled upload, a client that stopped reading its answer).</li>
 * </ul>
 *
 * <p>One sweep per {@link #sweepMillis} checks every connection instead of a timer per request, and instead of
 * Netty's idle-state handler, which hooks a listener on every write of every response: setting and cancelling a
 * Vert.x timer for every request cost about 8 % of the sidecar's Java time on the 4 KiB read path, the idle-state
 * handler about 5 %. A connection is closed between its timeout and the timeout plus one sweep.
 */
final class ConnectionDeadlines {

    private final Vertx vertx;
    private final ConnectionBounds bounds;
    private final Map<HttpConnection, Watched> connections = new HashMap<>();
    /** Between requests: the header timeout, or the idle timeout when shorter. */
    private final long waitingNanos;
    private final long stalledNanos;
    private final long sweepMillis;
    private long sweeper = -1;

    ConnectionDeadlines(Vertx vertx, ConnectionBounds bounds) {
        this.vertx = vertx;
        this.bounds = bounds;
        long shortest = Math.min(bounds.headerTimeoutMillis(), bounds.idleTimeoutMillis());
        this.waitingNanos = TimeUnit.MILLISECONDS.toNanos(shortest);
        this.stalledNanos = TimeUnit.MILLISECONDS.toNanos(bounds.idleTimeoutMillis());
        // An eighth of the shorter timeout, within [5 ms, 1 s]: 60 s fires within 61 s, a short one within 1/8 more.
        this.sweepMillis = Math.max(5, Math.min(1000, shortest / 8));
    }

    /** A connection was accepted. */
    void connected(HttpConnection connection) {
        if (!bounds.tryOpen()) {
            connection.close();
            return;
        }
        connections.put(connection, new Watched(connection, bounds.nanoTime()));
        connection.closeHandler(v -> {
            connections.remove(connection);
            bounds.closed();
        });
        if (sweeper < 0) {
            sweeper = vertx.setPeriodic(sweepMillis, id -> sweep());
        }
    }

    /** A request's headers arrived. */
    void requestStarted(HttpServerRequest request) {
        Watched watched = connections.get(request.connection());
        if (watched != null) {
            watched.active++;
            watched.current = request;
            watched.moved = -1; // the first sweep takes its count and starts the clock
        }
    }

    /** The response to a request of {@code connection} ended (or the request was abandoned). */
    void requestEnded(HttpConnection connection) {
        Watched watched = connections.get(connection);
        if (watched != null && watched.active > 0 && --watched.active == 0) {
            watched.current = null;
            watched.sinceNanos = bounds.nanoTime();
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
        long now = bounds.nanoTime();
        List<Watched> waiting = new ArrayList<>();
        List<Watched> stalled = new ArrayList<>();
        for (Watched watched : connections.values()) {
            if (watched.closing) {
                continue;
            }
            if (watched.active == 0) {
                if (now - watched.sinceNanos >= waitingNanos) {
                    waiting.add(watched);
                }
            } else if (watched.progressed(now)) {
                continue;
            } else if (now - watched.sinceNanos >= stalledNanos) {
                stalled.add(watched);
            }
        }
        // Closed after the pass: a close may run the connection's close handler, which edits the map.
        boolean idleIsShorter = bounds.idleTimeoutMillis() < bounds.headerTimeoutMillis();
        for (Watched watched : waiting) {
            close(watched, idleIsShorter);
        }
        for (Watched watched : stalled) {
            close(watched, true);
        }
    }

    private void close(Watched watched, boolean idle) {
        watched.closing = true; // counted once; its close handler removes it and frees its slot
        if (idle) {
            bounds.idleTimedOut();
        } else {
            bounds.headerTimedOut();
        }
        watched.connection.close();
    }

    private static final class Watched {
        final HttpConnection connection;
        int active;
        /** The request being answered (the last one, should a client pipeline). */
        HttpServerRequest current;
        /** Bytes the current request read and wrote at the last sweep; -1 before its first. */
        long moved;
        /** When the connection last went idle, or when the current request's bytes last moved. */
        long sinceNanos;
        boolean closing;

        Watched(HttpConnection connection, long sinceNanos) {
            this.connection = connection;
            this.sinceNanos = sinceNanos;
        }

        /** Whether the current request's bytes moved since the last sweep (restarting its clock if so). */
        boolean progressed(long now) {
            long bytes = current.bytesRead() + current.response().bytesWritten();
            if (bytes != moved) {
                moved = bytes;
                sinceNanos = now;
                return true;
            }
            return false;
        }
    }
}
