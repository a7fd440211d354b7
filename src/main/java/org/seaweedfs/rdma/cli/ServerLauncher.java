package org.seaweedfs.rdma.cli;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.PrintStream;
import java.net.BindException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.seaweedfs.rdma.BuildInfo;
import org.seaweedfs.rdma.SeaweedRdma;
import org.seaweedfs.rdma.cluster.ClusteredVertx;
import org.seaweedfs.rdma.config.RdmaConfig;
import org.seaweedfs.rdma.config.Role;
import org.seaweedfs.rdma.metrics.RdmaMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Starts the configured roles in a new Vert.x instance (with metrics when enabled) and stops them on shutdown. */
final class ServerLauncher {

    private static final Logger log = LoggerFactory.getLogger(ServerLauncher.class);

    private ServerLauncher() {
    }

    /** Blocks until the server is up (or failed); registers a shutdown hook that stops it gracefully. */
    static SeaweedRdma start(RdmaConfig config, PrintStream err) throws Exception {
        RdmaMetrics metrics = config.metrics().enabled() ? RdmaMetrics.create() : null;
        // http.transport: the ready line says which one runs, and this line why.
        TransportChoice transport = TransportChoice.resolve(config.http().transport());
        log.info("network transport {} ({})", transport.name(), transport.reason());
        // Clustered (Hazelcast, cluster.*) when enabled: the event-bus API then answers every member.
        Vertx vertx;
        try {
            vertx = ClusteredVertx.create(config.cluster(), new VertxOptions(), metrics, transport.transport())
                    .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new IllegalStateException("could not join the cluster: " + cause.getMessage(), cause);
        }
        CompletableFuture<SeaweedRdma> started = SeaweedRdma.deploy(vertx, config, metrics).toCompletionStage()
                .toCompletableFuture();
        SeaweedRdma server;
        try {
            server = started.get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            vertx.close();
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new IllegalStateException("could not start: " + describe(cause, config), cause);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            err.println("stopping...");
            try {
                server.close().compose(v -> vertx.close()).toCompletionStage().toCompletableFuture()
                        .get(15, TimeUnit.SECONDS);
            } catch (Exception e) {
                err.println("stop did not finish cleanly: " + e.getMessage());
            }
        }, "seaweedfs-rdma-stop"));
        return server;
    }

    /** A start failure in an operator's terms: a busy port names the key and the address. */
    static String describe(Throwable failure, RdmaConfig config) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String message = String.valueOf(t.getMessage());
            if (t instanceof BindException || message.contains("Address already in use")) {
                boolean ucx = message.toLowerCase(java.util.Locale.ROOT).contains("ucx")
                        || t.getClass().getName().startsWith("org.openucx");
                return ucx && config.runs(Role.AGENT)
                        ? "agent.listen " + config.agent().listen().port() + " on " + config.agent().listen().host()
                                + " is in use (" + message + ")"
                        : "http.port " + config.http().port() + " on " + config.http().host() + " is in use";
            }
        }
        return failure.getMessage();
    }

    private static String scheme(RdmaConfig c) {
        return c.http().tls() ? "https://" : "http://";
    }

    /** One line for operators: the version, what runs and where. */
    static String readyLine(SeaweedRdma server) {
        RdmaConfig c = server.config();
        StringBuilder line =
                new StringBuilder("ready: seaweedfs-rdma-sidecar ").append(BuildInfo.version()).append(';');
        if (c.runs(Role.AGENT)) {
            line.append(" agent on ucx://").append(c.agent().listen().host()).append(':').append(server.agent().port())
                    .append(" serving ").append(c.agent().volumeDirs()).append(';');
            if (!c.runs(Role.SIDECAR)) {
                line.append(" HTTP (health, status, metrics) on ").append(scheme(c)).append(c.http().host())
                        .append(':')
                        .append(server.httpPort()).append(';');
            }
        }
        if (c.runs(Role.SIDECAR)) {
            line.append(" sidecar HTTP on ").append(scheme(c)).append(c.http().host()).append(':')
                    .append(server.httpPort())
                    .append(" (").append(c.http().instances()).append(c.http().instances() == 1 ? " event loop)"
                            : " event loops)")
                    .append(", agents ").append(c.sidecar().agents())
                    .append(c.sidecar().master() == null ? "" : ", master " + c.sidecar().master())
                    .append(", event bus seaweedfs.needle.read / seaweedfs.needle.stat / seaweedfs.needle.readMany")
                    .append(c.cluster().enabled() ? " (clustered on " + c.cluster().host() + ":" + c.cluster().port()
                            + ")" : "")
                    .append(", network transport ").append(TransportChoice.nameOf(server.vertx()));
        }
        return line.toString();
    }
}
