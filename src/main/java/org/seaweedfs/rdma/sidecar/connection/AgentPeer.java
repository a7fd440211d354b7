package org.seaweedfs.rdma.sidecar.connection;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.time.Duration;
import java.util.Set;
import org.seaweedfs.rdma.config.HostPort;

/**
 * One agent as the sidecar sees it: a state machine (connecting -> up -> down -> up ...) around a control
 * {@link Link}. While up, it pings the agent every interval and declares it down when a pong does not come
 * back within the timeout, so an agent that hangs (its socket open, its worker stuck) is detected as well as
 * one that closes its connection. A down agent is reconnected after a {@link Backoff} with full jitter: quick
 * attempts for a while (an agent back from a restart is found within about the quick ceiling), then ever longer
 * waits.
 *
 * <p>All transitions run on the context the peer was started on (the connection manager's). Readers on other
 * event loops only read its volatile snapshot fields ({@link #state()}, {@link #link()}, {@link #volumes()}).
 */
public final class AgentPeer {

    private static final Logger LOG = LoggerFactory.getLogger(AgentPeer.class);

    /** A live control channel to one agent (the sidecar's AgentConnection behind an adapter). */
    public interface Link {

        /** The connection reads go through; null for a link that carries no reads (a scripted agent in tests). */
        AgentConnection connection();

        /** Completes when the agent's pong arrives; fails when the channel fails. No timeout of its own needed. */
        Future<Void> ping();

        /**
         * Frames received from the agent on this link so far (replies, pushes, pongs), read from any thread: a read
         * that waited while this moved was not waiting on a silent agent.
         */
        long framesHeard();

        /**
         * Volume ids the agent serves now (kept current by its pushes). Thread-safe snapshot. A link with a
         * {@link #connection()} lists the connection's volumes: reads are routed by the connection's view.
         */
        Set<Long> volumes();

        /** Called once when the channel is lost (closed, endpoint error), with a reason. */
        void closeHandler(Handler<String> onClose);

        Future<Void> close();
    }

    /** Opens a link: connect, hello, first volume list. */
    public interface Connector {
        Future<Link> connect(HostPort agent);
    }

    /** Told of every state change, on the peer's context. */
    public interface Listener {
        void stateChanged(AgentPeer peer, PeerState previous, PeerState next, String reason);
    }

    /** Intervals of one peer's health checks and reconnections. */
    public record Timing(Duration pingInterval, Duration pingTimeout, Duration connectTimeout, Backoff backoff) {
        public Timing {
            if (pingTimeout.compareTo(pingInterval) > 0) {
                throw new IllegalArgumentException("ping timeout " + pingTimeout + " exceeds the interval "
                        + pingInterval);
            }
        }
    }

    private final Vertx vertx;
    private final HostPort address;
    private final String name;
    private final Connector connector;
    private final Timing timing;
    private final Listener listener;

    private Context context;
    private volatile PeerState state = PeerState.CONNECTING;
    private volatile Link link;
    private volatile Set<Long> volumes = Set.of();
    private volatile String lastError;
    private volatile long lastRttNanos = -1;
    /** Bumped on every connection attempt and loss, so callbacks of an older link are ignored. */
    private long generation;
    private int failures;
    /** When the first of the current run of failures happened (System.nanoTime). */
    private long downSinceNanos;
    private long pingTimer = -1;
    private long reconnectTimer = -1;
    private boolean pingInFlight;
    private boolean stopped;

    public AgentPeer(Vertx vertx, HostPort address, Connector connector, Timing timing, Listener listener) {
        this.vertx = vertx;
        this.address = address;
        this.name = address.toString();
        this.connector = connector;
        this.timing = timing;
        this.listener = listener;
    }

    /** Starts connecting; call on the context that will own this peer. */
    public void start() {
        context = vertx.getOrCreateContext();
        connect();
    }

    /** Stops pinging and reconnecting and closes the link. */
    public Future<Void> stop() {
        stopped = true;
        generation++;
        cancelTimers();
        Link l = link;
        link = null;
        return l == null ? Future.succeededFuture() : l.close().recover(e -> Future.succeededFuture());
    }

    public HostPort address() {
        return address;
    }

    /** The agent's {@code host:port}: its identity in events, metrics and breakers. */
    public String name() {
        return name;
    }

    public PeerState state() {
        return state;
    }

    public boolean isUp() {
        return state == PeerState.UP;
    }

    /** The current link, null unless up. */
    public Link link() {
        return link;
    }

    /** The current link's connection, null unless up (or when the link carries no reads). */
    public AgentConnection connection() {
        Link l = link;
        return l == null ? null : l.connection();
    }

    /** The route to {@code volumeId} through this agent's current connection and its view of the volume. */
    public AgentRoute route(long volumeId) {
        AgentConnection c = connection();
        return new AgentRoute(this, volumeId, c, c == null ? null : c.volume(volumeId));
    }

    /** Volumes the agent serves now, or served when last up (for routing and for {@code /status}). */
    public Set<Long> volumes() {
        Link l = link;
        if (l != null) {
            volumes = l.volumes();
        }
        return volumes;
    }

    /**
     * The route to {@code volumeId} when this agent serves it, else null, in one look-up of the volume: through the
     * connection's view while connected, else by the volumes the agent served when last up (a route without a
     * connection: the agent is down, or its link carries no reads).
     */
    public AgentRoute routeIfServing(long volumeId) {
        Link l = link;
        AgentConnection c = l == null ? null : l.connection();
        if (c != null) {
            RemoteVolume volume = c.volume(volumeId);
            return volume == null ? null : new AgentRoute(this, volumeId, c, volume);
        }
        return (l != null ? l.volumes() : volumes).contains(volumeId) ? new AgentRoute(this, volumeId, null, null)
                : null;
    }

    /** The last failure (connect, ping, loss), null when none yet. */
    public String lastError() {
        return lastError;
    }

    /** Round-trip time of the last pong, -1 before the first. */
    public long lastRttNanos() {
        return lastRttNanos;
    }

    private void connect() {
        if (stopped) {
            return;
        }
        long gen = ++generation;
        long timer = vertx.setTimer(timing.connectTimeout().toMillis(),
                t ->
                        { if (gen
                        ==
                        generation) { down(gen, "no connection within " + timing.connectTimeout().toMillis()
                        + " ms"); } });
        Future<Link> attempt;
        try {
            attempt = connector.connect(address);
        } catch (RuntimeException e) {
            attempt = Future.failedFuture(e);
        }
        attempt.onComplete(ar -> context.runOnContext(v -> {
            vertx.cancelTimer(timer);
            if (gen != generation || stopped) {
                // Too late (timed out or stopped meanwhile): do not leak the channel.
                if (ar.succeeded()) {
                    ar.result().close();
                }
                return;
            }
            if (ar.failed()) {
                down(gen, "connect failed: " + describe(ar.cause()));
                return;
            }
            up(gen, ar.result());
        }));
    }

    private void up(long gen, Link l) {
        link = l;
        volumes = l.volumes();
        failures = 0;
        l.closeHandler(reason -> context.runOnContext(v -> down(gen, "connection lost: " + reason)));
        pingInFlight = false;
        pingTimer = vertx.setPeriodic(timing.pingInterval().toMillis(), t -> ping(gen));
        transition(PeerState.UP, "connected; " + volumes.size() + " volumes");
    }

    private void ping(long gen) {
        if (gen != generation || pingInFlight) {
            return;
        }
        Link l = link;
        if (l == null) {
            return;
        }
        pingInFlight = true;
        long sent = System.nanoTime();
        long timeoutMs = timing.pingTimeout().toMillis();
        long timer = vertx.setTimer(Math.max(1, timeoutMs),
                t -> { if (gen == generation) { down(gen, "no pong within " + timeoutMs + " ms"); } });
        Future<Void> pong;
        try {
            pong = l.ping();
        } catch (RuntimeException e) {
            pong = Future.failedFuture(e);
        }
        pong.onComplete(ar -> context.runOnContext(v -> {
            vertx.cancelTimer(timer);
            if (gen != generation) {
                return;
            }
            pingInFlight = false;
            if (ar.succeeded()) {
                lastRttNanos = System.nanoTime() - sent;
            } else {
                down(gen, "ping failed: " + describe(ar.cause()));
            }
        }));
    }

    /** The link of generation {@code gen} failed: drop it and schedule a reconnection. */
    private void down(long gen, String reason) {
        if (gen != generation || stopped) {
            return;
        }
        generation++;
        cancelTimers();
        lastError = reason;
        Link l = link;
        link = null;
        if (l != null) {
            volumes = l.volumes();
            l.close();
        }
        long now = System.nanoTime();
        if (failures == 0) {
            downSinceNanos = now;
        }
        long delay = timing.backoff().delayMillis(failures, (now - downSinceNanos) / 1_000_000);
        failures = failures == Integer.MAX_VALUE ? failures : failures + 1;
        if (state != PeerState.DOWN) {
            transition(PeerState.DOWN, reason);
        } else {
            LOG.debug("Agent " + name + " still down: " + reason + "; next attempt in " + delay + " ms");
        }
        reconnectTimer = vertx.setTimer(delay, t -> {
            reconnectTimer = -1;
            connect();
        });
    }

    private void transition(PeerState next, String reason) {
        PeerState previous = state;
        state = next;
        listener.stateChanged(this, previous, next, reason);
    }

    private void cancelTimers() {
        if (pingTimer >= 0) {
            vertx.cancelTimer(pingTimer);
            pingTimer = -1;
        }
        if (reconnectTimer >= 0) {
            vertx.cancelTimer(reconnectTimer);
            reconnectTimer = -1;
        }
        pingInFlight = false;
    }

    private static String describe(Throwable t) {
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }
}
