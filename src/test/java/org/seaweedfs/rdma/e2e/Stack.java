package org.seaweedfs.rdma.e2e;

import static org.seaweedfs.rdma.testing.Await.await;
import static org.seaweedfs.rdma.testing.Await.until;

import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.core.transport.Transport;
import java.nio.file.Path;
import java.util.Map;
import org.seaweedfs.rdma.SeaweedRdma;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.metrics.RdmaMetrics;

/**
 * One role of the product, started the way {@code serve} starts it: a configuration parsed from YAML, a Vert.x
 * instance of its own (built with the metrics registry), and {@link SeaweedRdma#deploy}. An agent and a sidecar
 * are two of these, so they share nothing but the UCX loopback and the network between them.
 */
final class Stack implements AutoCloseable {

    /** UCX over TCP loopback: works on every machine, and the agent can rebind its port after a restart. */
    static final String UCX = "ucx: {tls: [tcp]}\n";

    final Vertx vertx;
    final RdmaMetrics metrics;
    final SeaweedRdma server;

    private Stack(Vertx vertx, RdmaMetrics metrics, SeaweedRdma server) {
        this.vertx = vertx;
        this.metrics = metrics;
        this.server = server;
    }

    static Stack start(String yaml) {
        return start(yaml, null);
    }

    /** As {@link #start(String)}, its sockets on {@code transport} (null: Vert.x's choice). */
    static Stack start(String yaml, Transport transport) {
        RdmaMetrics metrics = RdmaMetrics.create();
        VertxBuilder builder = metrics.vertxBuilder(new VertxOptions());
        Vertx vertx = (transport == null ? builder : builder.withTransport(transport)).build();
        try {
            SeaweedRdma server = await(SeaweedRdma.deploy(vertx,
                    ConfigLoader.parse(yaml, "e2e test", Map.of()), metrics));
            return new Stack(vertx, metrics, server);
        } catch (RuntimeException e) {
            await(vertx.close());
            throw e;
        }
    }

    /** The agent role serving {@code volumes} on {@code port} (0: any). */
    static Stack agent(Path volumes, int port) {
        return start("roles: [agent]\n"
                + "http: {host: 127.0.0.1, port: 0}\n"
                + "agent: {listen: '127.0.0.1:" + port + "', volumeDirs: ['" + volumes + "']}\n"
                + UCX);
    }

    /** The sidecar role's YAML, connecting to the agent on {@code agentPort}; {@code extra} adds sidecar keys. */
    static String sidecarYaml(int agentPort, String extra) {
        return sidecarYaml(agentPort, extra, "");
    }

    /** As {@link #sidecarYaml(int, String)}; {@code httpExtra} adds http keys (", key: value" each). */
    static String sidecarYaml(int agentPort, String extra, String httpExtra) {
        return "roles: [sidecar]\n"
                + "http: {host: 127.0.0.1, port: 0, instances: 2" + httpExtra + "}\n"
                + "sidecar:\n"
                + "  agents: ['127.0.0.1:" + agentPort + "']\n"
                + "  bufferPool: {bufferSize: 1MiB, totalBytes: 16MiB}\n"
                + extra
                + UCX;
    }

    /** The sidecar, returned once its agent is up and every needle map mirrored. */
    static Stack sidecar(int agentPort, String extra) {
        return sidecar(agentPort, extra, "");
    }

    static Stack sidecar(int agentPort, String extra, String httpExtra) {
        Stack sidecar = start(sidecarYaml(agentPort, extra, httpExtra));
        until("the sidecar connected to its agent", sidecar::agentUp);
        return sidecar;
    }

    boolean agentUp() {
        return server.connections().peers().stream().allMatch(p -> p.isUp());
    }

    /** The process's HTTP listener (every role opens one). */
    int httpPort() {
        return server.httpPort();
    }

    int agentPort() {
        return server.agent().port();
    }

    @Override
    public void close() {
        await(server.close().eventually(() -> vertx.close()));
    }
}
