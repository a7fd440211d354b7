package org.seaweedfs.rdma.sidecar.connection;

import org.seaweedfs.rdma.sidecar.fallback.MasterClient;
import org.seaweedfs.rdma.sidecar.fallback.VolumeLocation;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.config.SidecarConfig;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.seaweedfs.rdma.sidecar.locations.LocationCache;

/**
 * Knows the agents and keeps a connection to each: the ones in {@code sidecar.agents}, and, when
 * {@code sidecar.master} is set, the ones found through the master's {@code /dir/lookup}. Each agent is an
 * {@link AgentPeer} (health pings, reconnection with backoff); every state change is published on the event bus
 * at {@value #PEER_STATE_ADDRESS} as {@code {"agent","state","previous","reason","time"}}, logged, and shown by
 * the gauges {@code seaweedfs.rdma.agent.state{agent,state}}; {@code seaweedfs.rdma.needle.map.size{agent}} counts
 * the locations of each agent's needles in the sidecar's location cache.
 *
 * <p>Routing: volume id -> agent comes from the agents' own volume lists (an up agent serving the volume first).
 * <p>Master discovery: an agent runs on the host of the volume server it sits beside (it maps that server's
 * files), so a volume server {@code H:p} listed by the master is served by the agent at {@code H:<agent port>},
 * the agent port being that of the first configured agent ({@value #DEFAULT_AGENT_PORT} when none). Agents found
 * so are connected like configured ones; the master's replica list also feeds the HTTP fallback.
 *
 * <p>Start-up ({@link #startup()}): open until every configured agent is connected, or its first connection
 * attempt has ended without one and {@code sidecar.readTimeout} has passed since this verticle started (an agent
 * started beside the sidecar may refuse the first attempt; the reconnection attempts that follow it find it within
 * that time). Reads that find no agent wait for it meanwhile.
 *
 * <p>Peers are created and driven on this verticle's context; lookups from other event loops read snapshots.
 */
public final class ConnectionManagerVerticle extends VerticleBase implements AgentRouter {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionManagerVerticle.class);

    public static final String PEER_STATE_ADDRESS = "seaweedfs.rdma.peer-state";
    public static final int DEFAULT_AGENT_PORT = 18515;
    private static final int CONNECT_TIMEOUT_FACTOR = 10;

    private final SidecarConfig config;
    private final AgentPeer.Connector connector;
    private final MasterClient master;
    private final ReadMeters meters;
    private final int agentPort;
    private final List<AgentPeer> peers = new CopyOnWriteArrayList<>();
    private final List<AgentPeer.Listener> listeners = new CopyOnWriteArrayList<>();
    /** Per peer, completed when its first connection attempt has ended (up or down); this context only. */
    private final Map<String, Promise<Void>> firstAttempts = new HashMap<>();
    private AgentPeer.Timing timing;
    private final StartupWindow startup;
    /** Configured agents that end the start-up by connecting, or by a first attempt that failed after the grace. */
    private final Set<String> unsettled = new LinkedHashSet<>();
    /** Agents whose first connection attempt has ended. This context only, as is {@link #unsettled}. */
    private final Set<String> tried = new HashSet<>();
    private boolean graceOver;

    /**
     * @param connector opens control channels to agents
     * @param master    the master's client when {@code sidecar.master} is set, else null
     * @param meters    where agent-state gauges go ({@link ReadMeters#noop()} when metrics are off)
     */
    public ConnectionManagerVerticle(SidecarConfig config, AgentPeer.Connector connector, MasterClient master,
                                     ReadMeters meters) {
        this.config = config;
        this.connector = connector;
        this.master = master;
        this.meters = meters;
        this.agentPort = config.agents().isEmpty() ? DEFAULT_AGENT_PORT : config.agents().get(0).port();
        config.agents().forEach(a -> unsettled.add(a.toString()));
        this.startup = new StartupWindow(String.join(", ", unsettled), Math.max(1, config.maxInFlightReads()));
    }

    @Override
    public Future<?> start() {
        // Connecting is the hello and the volume list (no needle map is fetched); AgentConnection bounds each
        // request itself, this only catches an attempt that never ends.
        Duration connectTimeout = (config.readTimeout().compareTo(config.ping().timeout()) > 0
                ? config.readTimeout() : config.ping().timeout()).multipliedBy(CONNECT_TIMEOUT_FACTOR);
        timing = new AgentPeer.Timing(config.ping().interval(), config.ping().timeout(), connectTimeout,
                Backoff.RECONNECTION);
        config.agents().forEach(this::addPeer);
        if (startup.isOpen()) {
            vertx.setTimer(Math.max(1, config.readTimeout().toMillis()), t -> {
                graceOver = true;
                settle(false);
            });
        }
        return Future.succeededFuture();
    }

    @Override
    public Future<?> stop() {
        startup.close();
        List<Future<Void>> stops = new ArrayList<>();
        peers.forEach(p -> stops.add(p.stop()));
        return Future.join(stops);
    }

    /**
     * Completes when the first connection attempt to every agent known now (the configured ones, after start) has
     * ended, connected or not; the connect timeout bounds it. Never fails: a down agent is the fallbacks' business.
     */
    public Future<Void> firstAttempts() {
        Promise<Void> settled = VertxInternals.promise(VertxInternals.callerContext(vertx));
        context.runOnContext(v -> Future.join(firstAttempts.values().stream().map(Promise::future).toList())
                .onComplete(ar -> settled.complete()));
        return settled.future();
    }

    /** The sidecar's start-up, which reads that find no agent wait out. */
    public StartupWindow startup() {
        return startup;
    }

    /**
     * Whether every known agent is connected now and start-up is over: then its volume lists are all there is to
     * know about which volumes agents serve. Any thread.
     */
    public boolean everyAgentUp() {
        if (startup.isOpen()) {
            return false;
        }
        for (AgentPeer p : peers) {
            if (!p.isUp()) {
                return false;
            }
        }
        return true;
    }

    /** The agents not up, each with its last error, for messages ("" when all are up). Any thread. */
    public String agentsNotUp() {
        StringBuilder out = new StringBuilder();
        for (AgentPeer p : peers) {
            if (!p.isUp()) {
                out.append(out.isEmpty() ? "" : "; ").append("agent ").append(p.name()).append(" is ")
                        .append(p.state().label).append(p.lastError() == null ? "" : ": " + p.lastError());
            }
        }
        return out.toString();
    }

    /** Every known agent, configured ones first, in the order they became known. */
    public List<AgentPeer> peers() {
        return List.copyOf(peers);
    }

    /** The peer for an agent address, null when unknown. */
    public AgentPeer peer(String agent) {
        for (AgentPeer p : peers) {
            if (p.name().equals(agent)) {
                return p;
            }
        }
        return null;
    }

    /**
     * The agent serving {@code volumeId}: an up one when there is one, else one that served it when last up
     * (so the caller can tell "agent down" from "no agent"), else null.
     */
    public AgentPeer peerFor(long volumeId) {
        AgentRoute route = routeFor(volumeId);
        return route == null ? null : route.peer();
    }

    /** Locations of an agent's needles in the sidecar's cache (0 when it is unknown or not connected). */
    public long cachedLocations(String agent) {
        AgentPeer p = peer(agent);
        AgentConnection connection = p == null ? null : p.connection();
        return connection == null ? 0 : connection.cachedLocations();
    }

    /**
     * Every connected agent's current view of the volume (EC shards of one volume may be on several agents, each
     * listing the volume with the shards it holds). Any thread.
     */
    public List<RemoteVolume> volumesOf(long volumeId) {
        List<RemoteVolume> volumes = new ArrayList<>(2);
        for (AgentPeer p : peers) {
            AgentConnection connection = p.connection();
            RemoteVolume volume = connection == null ? null : connection.volume(volumeId);
            if (volume != null) {
                volumes.add(volume);
            }
        }
        return volumes;
    }

    /**
     * {@link AgentRouter}: the route through the agent serving {@code volumeId}, an up one when there is one, else
     * one that served it when last up (so the caller can tell "agent down" from "no agent"), else null. Each peer
     * looks the volume up once.
     */
    @Override
    public AgentRoute routeFor(long volumeId) {
        AgentRoute known = null;
        for (AgentPeer p : peers) {
            AgentRoute route = p.routeIfServing(volumeId);
            if (route != null) {
                if (p.isUp()) {
                    return route;
                }
                if (known == null) {
                    known = route;
                }
            }
        }
        return known;
    }

    /**
     * Tells {@code listener} of every agent state change from now on, on this verticle's context, before the change
     * is published on the event bus. The read path learns of a down agent this way, without a round over the bus.
     */
    public void addListener(AgentPeer.Listener listener) {
        listeners.add(listener);
    }

    public void removeListener(AgentPeer.Listener listener) {
        listeners.remove(listener);
    }

    /**
     * The production connector: a UCX control channel per agent through {@code ucx} (the sidecar's
     * UcxWorkerVerticle, deployed first), authenticated with {@code sidecar.authToken}, its requests bounded by
     * {@code sidecar.readTimeout}.
     */
    public static AgentPeer.Connector ucxConnector(Vertx vertx, UcxWorkerVerticle ucx, SidecarConfig config,
            String clientId) {
        return ucxConnector(vertx, ucx, config, clientId,
                new LocationCache(config.locationCacheMaxBytes(), ReadMeters.nowhere()));
    }

    /** The production connector whose connections share {@code cache} (the sidecar's one location cache). */
    public static AgentPeer.Connector ucxConnector(Vertx vertx, UcxWorkerVerticle ucx, SidecarConfig config,
            String clientId,
                                                   LocationCache cache) {
        return agent -> AgentConnection.connect(vertx, ucx, new AgentConnection.Options(agent.host(), agent.port(),
                        clientId, config.authToken(), Math.max(1, config.readTimeout().toMillis()),
                        Math.max(64, config.maxInFlightReads() * 2)), cache)
                .map(AgentLink::new);
    }

    /** An {@link AgentConnection} as a peer's link. */
    public static final class AgentLink implements AgentPeer.Link {
        private final AgentConnection connection;

        public AgentLink(AgentConnection connection) {
            this.connection = connection;
        }

        @Override
        public AgentConnection connection() {
            return connection;
        }

        @Override
        public Future<Void> ping() {
            return connection.ping().mapEmpty();
        }

        @Override
        public long framesHeard() {
            return connection.framesHeard();
        }

        @Override
        public Set<Long> volumes() {
            return connection.volumeIds();
        }

        @Override
        public void closeHandler(Handler<String> onClose) {
            connection.closeHandler(cause ->
                    onClose.handle(cause == null ? "closed" : String.valueOf(cause.getMessage())));
        }

        @Override
        public Future<Void> close() {
            return connection.close();
        }
    }

    /** The master's client, null when {@code sidecar.master} is not set. */
    public MasterClient master() {
        return master;
    }

    /**
     * Asks the master where {@code volumeId} lives and starts connecting to the agents beside those volume
     * servers that are not known yet. A no-op without a master. Completes when the peers are added (not
     * connected).
     */
    public Future<Void> discover(long volumeId) {
        if (master == null || context == null) {
            return Future.succeededFuture();
        }
        return master.lookup(volumeId).compose(locations -> {
            List<HostPort> beside = new ArrayList<>();
            for (VolumeLocation location : locations.locations()) {
                try {
                    beside.add(new HostPort(location.host(), agentPort));
                } catch (IllegalArgumentException e) {
                    LOG.warn("Master listed volume server '" + location.url() + "': " + e.getMessage());
                }
            }
            Promise<Void> added = VertxInternals.promise(VertxInternals.callerContext(vertx));
            context.runOnContext(x -> {
                beside.forEach(this::addPeerIfNew);
                added.complete();
            });
            return added.future();
        });
    }

    private void addPeerIfNew(HostPort agent) {
        if (peer(agent.toString()) == null) {
            LOG.info("Agent " + agent + " found through master " + master.master());
            addPeer(agent);
        }
    }

    /** Runs on this verticle's context. */
    private void addPeer(HostPort agent) {
        if (peer(agent.toString()) != null) {
            LOG.warn("Agent " + agent + " is listed twice; connecting once");
            return;
        }
        AgentPeer peer = new AgentPeer(vertx, agent, connector, timing, this::stateChanged);
        firstAttempts.put(peer.name(), Promise.promise());
        peers.add(peer);
        meters.bindAgentState(peer.name(), () -> peer.state().label);
        meters.bindNeedleMapSize(peer.name(), () -> cachedLocations(peer.name()));
        peer.start();
    }

    private void stateChanged(AgentPeer peer, PeerState previous, PeerState next, String reason) {
        firstAttempts.get(peer.name()).tryComplete();
        if (next == PeerState.DOWN) {
            LOG.warn("Agent " + peer.name() + " is down: " + reason);
        } else {
            LOG.info("Agent " + peer.name() + " is " + next.label + ": " + reason);
        }
        listeners.forEach(l -> l.stateChanged(peer, previous, next, reason));
        vertx.eventBus().publish(PEER_STATE_ADDRESS, new JsonObject()
                .put("agent", peer.name())
                .put("state", next.label)
                .put("previous", previous.label)
                .put("reason", reason)
                .put("time", Instant.now().toString()));
        // Last: the listeners (the read path's breakers) know of the change before the waiting reads look again.
        tried.add(peer.name());
        settle(next == PeerState.UP && unsettled.remove(peer.name()));
    }

    /** Ends the start-up when no configured agent is left to wait for; else wakes the waiting reads on a connection. */
    private void settle(boolean connected) {
        if (!startup.isOpen()) {
            return;
        }
        if (graceOver) {
            unsettled.removeAll(tried);
        }
        if (unsettled.isEmpty()) {
            List<String> down = peers.stream().filter(p -> !p.isUp()).map(AgentPeer::name).toList();
            LOG.info("Start-up over: " + (down.isEmpty() ? "every configured agent is connected"
                    : "not connected to " + String.join(", ", down) + " (its reads go to the fallbacks)"));
            startup.close();
        } else if (connected) {
            startup.changed(String.join(", ", unsettled));
        }
    }
}
