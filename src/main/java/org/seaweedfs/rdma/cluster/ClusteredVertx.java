package org.seaweedfs.rdma.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.core.transport.Transport;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.seaweedfs.rdma.config.ClusterConfig;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.metrics.RdmaMetrics;

/**
 * The Vert.x instance {@code serve} runs in: clustered over Hazelcast when {@code cluster.enabled}, else a plain one.
 * The cluster joins by TCP ({@code cluster.members}), never multicast; Hazelcast and the event bus bind to
 * {@code cluster.host} (the event bus's own TCP port is an ephemeral one, which members learn from Hazelcast).
 * Hazelcast logs through SLF4J and phones nowhere.
 */
public final class ClusteredVertx {

    private ClusteredVertx() {
    }

    /** A Vert.x instance as configured ({@code metrics} may be null) on Vert.x's own choice of transport. */
    public static Future<Vertx> create(ClusterConfig cluster, VertxOptions options, RdmaMetrics metrics) {
        return create(cluster, options, metrics, null);
    }

    /**
     * A Vert.x instance as configured ({@code metrics} may be null): clustered when enabled, its sockets on
     * {@code transport} (null: Vert.x's choice).
     */
    public static Future<Vertx> create(ClusterConfig cluster, VertxOptions options, RdmaMetrics metrics,
                                       Transport transport) {
        VertxOptions effective = new VertxOptions(options);
        if (cluster.enabled()) {
            effective.getEventBusOptions().setHost(cluster.host()).setPort(0);
        }
        VertxBuilder builder = metrics == null ? Vertx.builder().with(effective) : metrics.vertxBuilder(effective);
        if (transport != null) {
            builder = builder.withTransport(transport);
        }
        if (!cluster.enabled()) {
            return Future.succeededFuture(builder.build());
        }
        try {
            return builder.withClusterManager(new HazelcastClusterManager(hazelcast(cluster))).buildClustered();
        } catch (RuntimeException e) {
            return Future.failedFuture(e);
        }
    }

    /**
     * Vert.x's Hazelcast configuration (its maps) with a TCP join of {@code cluster.members} on {@code cluster.host}.
     */
    public static Config hazelcast(ClusterConfig cluster) {
        Config config = ConfigUtil.loadConfig();
        config.setProperty("hazelcast.logging.type", "slf4j");
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.shutdownhook.enabled", "false"); // Vert.x leaves the cluster on close
        config.setProperty("hazelcast.local.localAddress", cluster.host());
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(cluster.port() == 0 ? freePort(cluster.host()) : cluster.port()).setPortAutoIncrement(false);
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true);
        for (HostPort member : cluster.members()) {
            join.getTcpIpConfig().addMember(member.host() + ":" + member.port());
        }
        return config;
    }

    private static int freePort(String host) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getByName(host), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cluster.port 0: no free port on " + host, e);
        }
    }
}
