package org.seaweedfs.rdma.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.VertxOptions;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.spi.VertxMetricsFactory;
import io.vertx.core.spi.metrics.ClientMetrics;
import io.vertx.core.spi.metrics.DatagramSocketMetrics;
import io.vertx.core.spi.metrics.EventBusMetrics;
import io.vertx.core.spi.metrics.HttpClientMetrics;
import io.vertx.core.spi.metrics.HttpServerMetrics;
import io.vertx.core.spi.metrics.PoolMetrics;
import io.vertx.core.spi.metrics.TCPMetrics;
import io.vertx.core.spi.metrics.VertxMetrics;
import io.vertx.micrometer.MicrometerMetricsFactory;

/**
 * Vert.x metrics into one registry: vertx-micrometer's for everything but the HTTP server and the event bus, whose
 * per-request meters {@link HttpServerMeters} and {@link EventBusMeters} record under the same names at a fraction of
 * the cost. One of each per registry, shared by every Vert.x instance and listener publishing into it, so their
 * gauges count them all.
 */
final class VertxMetersFactory implements VertxMetricsFactory {

    private final MicrometerMetricsFactory micrometer;
    private final HttpServerMeters httpServer;
    private final EventBusMeters eventBus;

    VertxMetersFactory(MeterRegistry registry, HttpServerMeters httpServer, EventBusMeters eventBus) {
        this.micrometer = new MicrometerMetricsFactory(registry);
        this.httpServer = httpServer;
        this.eventBus = eventBus;
    }

    @Override
    public VertxMetrics metrics(VertxOptions options) {
        return new Metrics(micrometer.metrics(options), httpServer, eventBus);
    }

    /** Delegates every kind of metrics to vertx-micrometer except the HTTP server's and the event bus's. */
    private record Metrics(VertxMetrics micrometer, HttpServerMeters httpServer, EventBusMeters eventBus)
            implements VertxMetrics {

        @Override
        public HttpServerMetrics<?, ?,
                ?> createHttpServerMetrics(HttpServerOptions options, SocketAddress localAddress) {
            return httpServer;
        }

        @Override
        public EventBusMetrics<?> createEventBusMetrics() {
            return eventBus;
        }

        @Override
        public ClientMetrics<?, ?, ?> createClientMetrics(SocketAddress remoteAddress, String type, String namespace) {
            return micrometer.createClientMetrics(remoteAddress, type, namespace);
        }

        @Override
        public HttpClientMetrics<?, ?, ?> createHttpClientMetrics(HttpClientOptions options) {
            return micrometer.createHttpClientMetrics(options);
        }

        @Override
        public TCPMetrics<?> createNetServerMetrics(NetServerOptions options, SocketAddress localAddress) {
            return micrometer.createNetServerMetrics(options, localAddress);
        }

        @Override
        public TCPMetrics<?> createNetClientMetrics(NetClientOptions options) {
            return micrometer.createNetClientMetrics(options);
        }

        @Override
        public DatagramSocketMetrics createDatagramSocketMetrics(DatagramSocketOptions options) {
            return micrometer.createDatagramSocketMetrics(options);
        }

        @Override
        public PoolMetrics<?, ?> createPoolMetrics(String poolType, String poolName, int maxPoolSize) {
            return micrometer.createPoolMetrics(poolType, poolName, maxPoolSize);
        }

        @Override
        public void vertxCreated(io.vertx.core.Vertx vertx) {
            micrometer.vertxCreated(vertx);
        }

        @Override
        public boolean isMetricsEnabled() {
            return micrometer.isMetricsEnabled();
        }

        @Override
        public void close() {
            micrometer.close();
        }
    }
}
