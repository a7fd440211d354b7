package org.seaweedfs.rdma.sidecar;

import org.seaweedfs.rdma.sidecar.connection.AgentConnection;
import org.seaweedfs.rdma.sidecar.connection.AgentPeer;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.seaweedfs.rdma.config.Fallback;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.config.SidecarConfig;
import org.seaweedfs.rdma.testing.SidecarSetup;

/**
 * TEST DOUBLE of the agents' control channels (the connector the connection manager uses), scripted per agent:
 * which volumes it serves, whether it refuses connections, whether it hangs (pings and hellos never answered,
 * the channel left open, as an agent whose worker is stuck), and dropping the channel from the agent's side.
 * Replaced by the real AgentConnection over UCX in the end-to-end tests.
 */
public final class ScriptedAgents implements AgentPeer.Connector {

    /** One scripted agent. */
    public static final class Agent {
        private volatile Set<Long> volumes = Set.of();
        private volatile boolean refuse;
        private volatile boolean hang;
        private volatile Link link;
        private final AtomicInteger connects = new AtomicInteger();
        private final AtomicInteger pings = new AtomicInteger();
        private final java.util.concurrent.atomic.AtomicLong framesSent = new java.util.concurrent.atomic.AtomicLong();
        private final java.util.Queue<Promise<AgentPeer.Link>> waitingHellos =
                new java.util.concurrent.ConcurrentLinkedQueue<>();

        public Agent serves(Long... volumeIds) {
            volumes = Set.of(volumeIds);
            return this;
        }

        public Agent refuse(boolean on) {
            refuse = on;
            return this;
        }

        /** Hangs the agent; un-hanging it answers the hellos that waited (as a stuck agent that resumes would). */
        public Agent hang(boolean on) {
            hang = on;
            if (!on) {
                Promise<AgentPeer.Link> p;
                while ((p = waitingHellos.poll()) != null) {
                    Link l = new Link(this);
                    link = l;
                    p.tryComplete(l);
                }
            }
            return this;
        }

        /**
         * The agent sends a frame (a reply to another request). Its pongs are not counted: tests decide when the agent
         * is heard from, whatever the real-time pings do meanwhile.
         */
        public void sendsFrame() {
            framesSent.incrementAndGet();
        }

        /** The agent closes its side of the current channel. */
        public void drop(String reason) {
            Link l = link;
            if (l != null) {
                l.lost(reason);
            }
        }

        public int connects() {
            return connects.get();
        }

        public int pings() {
            return pings.get();
        }
    }

    private static final class Link implements AgentPeer.Link {
        private final Agent agent;
        private volatile Handler<String> onClose;
        private volatile boolean closed;

        Link(Agent agent) {
            this.agent = agent;
        }

        @Override
        public Future<Void> ping() {
            agent.pings.incrementAndGet();
            if (closed) {
                return Future.failedFuture("channel closed");
            }
            return agent.hang ? Promise.<Void>promise().future() : Future.succeededFuture();
        }

        @Override
        public long framesHeard() {
            return agent.framesSent.get();
        }

        @Override
        public AgentConnection connection() {
            return null; // the scripted read paths need no connection
        }

        @Override
        public Set<Long> volumes() {
            return agent.volumes;
        }

        @Override
        public void closeHandler(Handler<String> onClose) {
            this.onClose = onClose;
        }

        @Override
        public Future<Void> close() {
            closed = true;
            return Future.succeededFuture();
        }

        void lost(String reason) {
            closed = true;
            Handler<String> h = onClose;
            if (h != null) {
                h.handle(reason);
            }
        }
    }

    private final Map<String, Agent> agents = new ConcurrentHashMap<>();

    public Agent agent(String address) {
        return agents.computeIfAbsent(address, a -> new Agent());
    }

    @Override
    public Future<AgentPeer.Link> connect(HostPort address) {
        Agent agent = agent(address.toString());
        agent.connects.incrementAndGet();
        if (agent.refuse) {
            return Future.failedFuture("connection refused by " + address);
        }
        if (agent.hang) {
            // A stuck agent does not answer the hello either.
            Promise<AgentPeer.Link> hello = Promise.promise();
            agent.waitingHellos.add(hello);
            return hello.future();
        }
        Link link = new Link(agent);
        agent.link = link;
        return Future.succeededFuture(link);
    }

    /** A sidecar configuration with short pings and a short open breaker (their defaults are in conf/config.yaml). */
    public static SidecarConfig config(List<HostPort> agents, HostPort master, List<Fallback> fallback) {
        return config(agents, master, fallback, Duration.ofSeconds(2));
    }

    /**
     * As {@link #config(List, HostPort, List)} with {@code sidecar.readTimeout} at {@code readTimeout}, which also
     * bounds how long start-up waits for the agents (and, ten times over, one connection attempt).
     */
    public static SidecarConfig config(List<HostPort> agents, HostPort master, List<Fallback> fallback,
                                       Duration readTimeout) {
        return SidecarSetup.config(SidecarSetup.agents(agents), master == null ? "" : "master: '" + master + "'",
                SidecarSetup.fallback(fallback), SidecarSetup.duration("readTimeout", readTimeout),
                "maxInFlightReads: 64", SidecarSetup.SMALL_POOL, "ping.interval: 100ms", "breaker.openDuration: 200ms");
    }
}
