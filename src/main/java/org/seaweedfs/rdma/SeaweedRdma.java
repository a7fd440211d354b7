package org.seaweedfs.rdma;

import io.vertx.core.Deployable;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import io.vertx.core.net.KeyCertOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.vertx.ext.web.client.WebClient;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.seaweedfs.rdma.agent.AgentVerticle;
import org.seaweedfs.rdma.client.NeedleClient;
import org.seaweedfs.rdma.config.Fallback;
import org.seaweedfs.rdma.config.HttpConfig;
import org.seaweedfs.rdma.config.RdmaConfig;
import org.seaweedfs.rdma.config.Role;
import org.seaweedfs.rdma.config.SidecarConfig;
import org.seaweedfs.rdma.eventbus.EventBusApiVerticle;
import org.seaweedfs.rdma.http.HttpApiContext;
import org.seaweedfs.rdma.http.HttpApiVerticle;
import org.seaweedfs.rdma.http.RoleStatus;
import org.seaweedfs.rdma.http.StatusHistory;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.seaweedfs.rdma.metrics.RdmaMetrics;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.connection.ConnectionManagerVerticle;
import org.seaweedfs.rdma.sidecar.fallback.MasterClient;
import org.seaweedfs.rdma.sidecar.ec.EcShardHolders;
import org.seaweedfs.rdma.sidecar.ec.EcShardReader;
import org.seaweedfs.rdma.sidecar.read.NeedleReader;
import org.seaweedfs.rdma.sidecar.read.ReadPathOptions;
import org.seaweedfs.rdma.sidecar.read.ReadThroughSource;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.sidecar.resilience.ResilienceSettings;
import org.seaweedfs.rdma.sidecar.resilience.ResilientNeedleSource;
import org.seaweedfs.rdma.sidecar.Admission;
import org.seaweedfs.rdma.sidecar.AdmittedSource;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.fallback.ReadTokens;
import org.seaweedfs.rdma.sidecar.fallback.VolumeServerSource;
import org.seaweedfs.rdma.tls.ClientTls;
import org.seaweedfs.rdma.tls.TlsFiles;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;
import org.seaweedfs.rdma.sidecar.locations.LocationCache;

/**
 * The whole server as one deployable unit: the roles the configuration enables, deployed into a {@link Vertx}
 * the caller owns. This is also the embedding API: a Vert.x application calls
 * {@code SeaweedRdma.deploy(vertx, config, metrics)} and then uses the event-bus addresses
 * {@code seaweedfs.needle.read} / {@code seaweedfs.needle.stat} (and, when it wants, the HTTP API).
 *
 * <p>Order of start: the agent opens its volumes while its UCX worker starts (their registrations wait for the
 * worker); for the sidecar its UCX worker first (everything else hands it work), then the registered buffer pool,
 * the connection manager and the event-bus API, while the HTTP listener opens (in a process with the agent alone,
 * the listener opens while the agent starts);
 * {@link #deploy} completes once the first connection attempt to every configured agent has ended (an agent that
 * is down delays it by at most the connect timeout). Reads that arrive while the sidecar is starting wait for the
 * agents up to their deadline ({@link ConnectionManagerVerticle#startup()}). {@link #close()} undoes it in
 * reverse, so no API takes requests once the read path is going away.
 */
public final class SeaweedRdma {

    private static final Logger LOG = LoggerFactory.getLogger(SeaweedRdma.class);

    private final Vertx vertx;
    private final RdmaConfig config;
    private final List<HttpApiVerticle> httpInstances = new CopyOnWriteArrayList<>();
    /** Each role's UCX worker, whose lanes are logged once the server is ready. */
    private final List<UcxWorkerVerticle> ucxWorkers = new CopyOnWriteArrayList<>();
    /** What to undo on close, newest first. */
    private final Deque<Supplier<Future<?>>> stops = new ArrayDeque<>();
    private AgentVerticle agent;
    /** The agent role's status for the HTTP listener, from before the agent is deployed; null without the role. */
    private RoleStatus agentStatus;
    private ConnectionManagerVerticle manager;
    private ResilientNeedleSource source;
    /** {@link #source} behind the one admission of reads every face takes. */
    private NeedleSource admitted;
    private HttpApiContext sidecarApi;
    /** The TLS files the configuration names, loaded and checked before anything starts. */
    private ClientTls clientTls;
    private KeyCertOptions listenerTls;

    private SeaweedRdma(Vertx vertx, RdmaConfig config) {
        this.vertx = vertx;
        this.config = config;
    }

    /**
     * Deploys the configured roles into {@code vertx}. {@code metrics} may be null (no meters, {@code /metrics}
     * answers 404); pass the one whose registry the Vert.x instance was built with to get HTTP server metrics too.
     * The agent's counters and needle counts and each role's UCX worker counters are bound to its registry.
     * On failure everything already deployed is undeployed again.
     */
    public static Future<SeaweedRdma> deploy(Vertx vertx, RdmaConfig config, RdmaMetrics metrics) {
        SeaweedRdma server = new SeaweedRdma(vertx, config);
        if (metrics != null) {
            metrics.registerBuildInfo(BuildInfo.version());
        }
        Future<Void> started = server.loadTls();
        if (config.runs(Role.SIDECAR)) {
            if (config.runs(Role.AGENT)) {
                started = started.compose(v -> server.startAgent(metrics));
            }
            // The HTTP listener starts while the sidecar connects to its agents (startSidecar builds the read path
            // before it returns): class loading and binding overlap the network round trips instead of following them.
            started = started.compose(v -> {
                Future<Void> sidecar = server.startSidecar(metrics);
                return Future.all(sidecar, server.startHttp(metrics)).mapEmpty();
            });
        } else {
            // The agent alone: the HTTP listener opens while the agent opens its volumes (its /ready says not ready
            // until the agent listens).
            started = started.compose(v -> {
                Future<Void> agentStarted = server.startAgent(metrics);
                return Future.all(agentStarted, server.startHttp(metrics)).mapEmpty();
            });
        }
        return started.map(server)
                .onSuccess(s -> s.ucxWorkers.forEach(UcxWorkerVerticle::logLanes))
                .recover(e -> server.close().transform(x -> Future.failedFuture(e)));
    }

    /** Reads the TLS files off the event loop; a missing or bad one fails the start naming its key and file. */
    private Future<Void> loadTls() {
        HttpConfig http = config.http();
        return vertx.executeBlocking(() -> {
            listenerTls = TlsFiles.listener(vertx, "http.tlsCert", http.tlsCert(), "http.tlsKey", http.tlsKey());
            clientTls = config.runs(Role.SIDECAR)
                    ? TlsFiles.client(vertx, "sidecar.securityToml", config.sidecar().securityToml()) : null;
            return null;
        }, false);
    }

    private Future<Void> startAgent(RdmaMetrics metrics) {
        UcxWorkerVerticle ucx = new UcxWorkerVerticle(RoleSettings.ucx(config));
        ucxWorkers.add(ucx);
        AgentVerticle agentVerticle = new AgentVerticle(ucx, RoleSettings.agent(config.agent()));
        agentStatus = new AgentRoleStatus(agentVerticle);
        if (metrics != null) {
            RoleMetricsBinder binder = new RoleMetricsBinder(metrics.meterRegistry());
            binder.bindUcx("agent", ucx.metrics());
            binder.bindAgent(agentVerticle.metrics());
        }
        // The agent opens its volumes while UCX starts (its registrations wait for the worker): the index files and
        // the UCX context are read on two cores. Undone in reverse: the agent first, then its UCX worker.
        Future<String> ucxId = vertx.deployVerticle(ucx, new DeploymentOptions());
        Future<String> agentId = vertx.deployVerticle(agentVerticle,
                new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER));
        return Future.join(ucxId, agentId).<Void>transform(ar -> {
            for (Future<String> id : List.of(ucxId, agentId)) {
                if (id.succeeded()) {
                    stops.push(() -> vertx.undeploy(id.result()));
                }
            }
            Future<String> failed = ucxId.failed() ? ucxId : agentId;
            return failed.failed() ? Future.<Void>failedFuture(failed.cause()) : Future.<Void>succeededFuture();
        }).onSuccess(v -> agent = agentVerticle);
    }

    private Future<Void> startSidecar(RdmaMetrics metrics) {
        SidecarConfig sidecar = config.sidecar();
        ReadMeters meters = metrics == null ? ReadMeters.noop() : metrics.read();
        UcxWorkerVerticle ucx = new UcxWorkerVerticle(RoleSettings.ucx(config));
        ucxWorkers.add(ucx);
        RegisteredBufferPool pool = new RegisteredBufferPool(RoleSettings.bufferPool(sidecar.bufferPool()));
        WebClient client = VolumeServerSource.newClient(vertx, 64, clientTls);
        MasterClient master = sidecar.master() == null ? null
                : new MasterClient(vertx, client, sidecar.master(), MasterClient.DEFAULT_TTL, sidecar.readTimeout());
        LocationCache locations = new LocationCache(sidecar.locationCacheMaxBytes(),
                metrics == null ? ReadMeters.nowhere() : metrics.registry());
        ConnectionManagerVerticle connections = new ConnectionManagerVerticle(sidecar,
                ConnectionManagerVerticle.ucxConnector(vertx, ucx, sidecar, "sidecar-" + ProcessHandle.current().pid(),
                        locations),
                master, meters);
        ReadPathOptions options = new ReadPathOptions(sidecar.readTimeout().toMillis(), sidecar.maxNeedleBytes());
        EcShardReader ecShards = new EcShardReader(EcShardHolders.of(connections::volumesOf,
                vid -> connections.discover(vid).onFailure(e -> LOG.debug("Discovery of EC volume " + vid + ": "
                        + e.getMessage()))), pool, sidecar.ecRebuild(), sidecar.readTimeout());
        NeedleReader reader = new NeedleReader(vertx, connections, pool, options, ecShards);
        ReadThroughSource readThrough = new ReadThroughSource(vertx, connections, options);
        VolumeServerSource volumeServer =
                new VolumeServerSource(client, master, sidecar.volumeServers(), sidecar.maxNeedleBytes(),
                sidecar.readTimeout(), ReadTokens.create(config.http().jwtReadKey()));
        ResilientNeedleSource resilient = new ResilientNeedleSource(vertx, connections, reader, readThrough,
                volumeServer, ResilienceSettings.from(sidecar),
                metrics == null ? ReadMeters.nowhere() : metrics.meterRegistry());
        resilient.mirrorSizes(connections::cachedLocations);
        resilient.ecShards(ecShards);
        stops.push(() -> {
            resilient.close();
            return Future.succeededFuture();
        });
        if (metrics != null) {
            RoleMetricsBinder binder = new RoleMetricsBinder(metrics.meterRegistry());
            binder.bindUcx("sidecar", ucx.metrics());
            binder.bindVolumeServerSource(volumeServer);
            binder.bindBufferPool(pool);
        }
        if (sidecar.master() == null && sidecar.volumeServers().isEmpty()
                && sidecar.fallback().contains(Fallback.HTTP)) {
            LOG.warn("Neither sidecar.master nor sidecar.volumeServers is set: /read?volume_server= hints are followed "
                    + "to any host an HTTP client names. In production set sidecar.master, or list your volume servers "
                    + "in sidecar.volumeServers");
        }
        // One admission per read, whichever face receives it (HTTP, event bus, typed client).
        Admission reads = new Admission(sidecar.maxInFlightReads());
        NeedleSource admittedReads = new AdmittedSource(vertx, resilient, reads);
        HttpApiContext api = HttpApiContext.create(admittedReads, config.http().readSliceFallback() ? admittedReads
                        : new AdmittedSource(vertx, resilient.withoutFallbacks(), reads), resilient, reads, config,
                metrics);
        StatusHistory history = new StatusHistory(api.meters().tally(), resilient);
        sidecarApi = api.withHistory(history);
        stops.push(() -> {
            client.close();
            return Future.succeededFuture();
        });
        // Runs after the UCX worker stopped (stops unwind in reverse): no get can write into the pool any more.
        stops.push(() -> {
            if (!pool.isRegistered()) {
                pool.free();
            }
            return Future.succeededFuture();
        });
        return deploy(ucx, new DeploymentOptions())
                .compose(v -> pool.register(ucx))
                .onSuccess(v -> stops.push(pool::deregister))
                .compose(v -> deploy(connections, new DeploymentOptions()))
                // Before the agents are connected, as the HTTP listener: reads in the start-up wait for them.
                .compose(v -> EventBusApiVerticle.deploy(vertx,
                        SidecarConfig.readManyConsumers(Runtime.getRuntime().availableProcessors(),
                                VertxInternals.eventLoops(vertx)),
                        singleReads -> new EventBusApiVerticle(admittedReads, sidecar.maxNeedleBytes(), meters,
                                config.idlePollMicros(), sidecar.batch(), singleReads)))
                .onSuccess(ids -> ids.forEach(id -> stops.push(() -> vertx.undeploy(id))))
                .compose(v -> connections.firstAttempts())
                .onSuccess(v -> {
                    manager = connections;
                    source = resilient;
                    admitted = admittedReads;
                })
                .onSuccess(v -> {
                    long timer = history.start(vertx);
                    stops.push(() -> Future.succeededFuture(vertx.cancelTimer(timer)));
                });
    }

    /** The HTTP listener every process opens, last: with the sidecar's read path when it runs, else status only. */
    private Future<Void> startHttp(RdmaMetrics metrics) {
        HttpApiContext api = sidecarApi != null ? sidecarApi.withAgent(agentStatus)
                : HttpApiContext.withoutSidecar(agentStatus, config, metrics);
        return deploy(() -> {
            HttpApiVerticle v = new HttpApiVerticle(api, config.idlePollMicros(), listenerTls);
            httpInstances.add(v);
            return v;
        }, new DeploymentOptions().setInstances(config.http().instances()));
    }

    /** Deploys {@code options.getInstances()} instances made by {@code factory}; undeployed on close. */
    private Future<Void> deploy(Supplier<? extends Deployable> factory, DeploymentOptions options) {
        return vertx.deployVerticle(factory, options)
                .onSuccess(id -> stops.push(() -> vertx.undeploy(id)))
                .mapEmpty();
    }

    private Future<Void> deploy(Deployable verticle, DeploymentOptions options) {
        return vertx.deployVerticle(verticle, options)
                .onSuccess(id -> stops.push(() -> vertx.undeploy(id)))
                .mapEmpty();
    }

    /** The agent role's verticle, or null when this process runs no agent. */
    public AgentVerticle agent() {
        return agent;
    }

    /** The sidecar's connection manager, or null when this process runs no sidecar. */
    public ConnectionManagerVerticle connections() {
        return manager;
    }

    /** The sidecar's read path (RDMA with its fallbacks), or null when this process runs no sidecar. */
    public ResilientNeedleSource needles() {
        return source;
    }

    /**
     * A {@link NeedleClient} over this process's sidecar: each read runs on the caller's context (no event-bus
     * message, no thread hop), its bytes a heap copy the caller owns. Fails with IllegalStateException when this
     * process runs no sidecar.
     */
    public NeedleClient client() {
        if (source == null) {
            throw new IllegalStateException("no sidecar runs here (roles: " + config.roles() + ")");
        }
        return NeedleClient.overSource(vertx, admitted, config.sidecar().maxNeedleBytes(),
                config.sidecar().batch().window());
    }

    /** The HTTP port actually bound (useful with {@code http.port: 0}), or -1 before the listener started. */
    public int httpPort() {
        return httpInstances.isEmpty() ? -1 : httpInstances.get(0).actualPort();
    }

    /** The Vert.x instance the roles run in. */
    public Vertx vertx() {
        return vertx;
    }

    public RdmaConfig config() {
        return config;
    }

    /** Undeploys everything in reverse order of start; never fails (problems are logged). */
    public Future<Void> close() {
        Future<Void> chain = Future.succeededFuture();
        while (!stops.isEmpty()) {
            Supplier<Future<?>> stop = stops.pop();
            chain = chain.transform(x -> stop.get()
                    .onFailure(e -> LOG.warn("stopping: " + e.getMessage()))
                    .otherwiseEmpty()
                    .mapEmpty());
        }
        return chain;
    }
}
