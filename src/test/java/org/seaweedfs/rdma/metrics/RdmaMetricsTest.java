package org.seaweedfs.rdma.metrics;

import static org.junit.jupiter.api.Assertions.*;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.sidecar.Admission;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.config.HttpConfig;
import org.seaweedfs.rdma.config.RdmaConfig;
import org.seaweedfs.rdma.http.HttpApiContext;
import org.seaweedfs.rdma.http.HttpApiVerticle;
import org.seaweedfs.rdma.sidecar.FixedReadPathStatus;
import org.seaweedfs.rdma.sidecar.InMemoryNeedleSource;
import org.seaweedfs.rdma.volume.FileId;

class RdmaMetricsTest {

    @Test
    void bindsToAnApplicationsOwnRegistry() throws Exception {
        io.micrometer.core.instrument.simple.SimpleMeterRegistry app =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        RdmaMetrics metrics = RdmaMetrics.on(app);
        assertSame(app, metrics.meterRegistry());
        assertNull(metrics.registry(), "not a Prometheus registry: nothing for /metrics to serve");
        assertThrows(IllegalStateException.class, metrics::scrape);
        metrics.read().recordRead("rdma", "ok", 1_000);
        assertTrue(app.getMeters().stream().anyMatch(m -> m.getId().getName().startsWith("seaweedfs.")),
                "read meters in the app's registry");
        Vertx vertx = metrics.newVertx(new VertxOptions());
        try {
            vertx.eventBus().consumer("test.app.registry", m -> { }).completion().await(10, TimeUnit.SECONDS);
            assertTrue(app.getMeters().stream().anyMatch(m -> m.getId().getName().startsWith("vertx.")),
                    "Vert.x meters too");
        } finally {
            vertx.close().await(10, TimeUnit.SECONDS);
        }
        io.micrometer.prometheusmetrics.PrometheusMeterRegistry prometheus =
                new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(
                        io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT);
        assertSame(prometheus, RdmaMetrics.on(prometheus).registry(),
                "an app's Prometheus registry is what /metrics serves");
    }

    /**
     * Where Micrometer logs through java.util.logging; the command line's Logback has the same filter
     * (cli.LoggingTest).
     */
    @Test
    void vertxMicrometersOwnGaugeReRegistrationsAreNotWarnedButOursStillAre() {
        RdmaMetrics.create();
        java.util.logging.Filter filter =
                java.util.logging.Logger.getLogger("io.micrometer.core.instrument.MeterRegistry")
                .getFilter();
        assertFalse(filter.isLoggable(new java.util.logging.LogRecord(java.util.logging.Level.WARNING,
                "This Gauge has been already registered (MeterId{name='vertx.eventbus.handlers', tags=[]}), the "
                        + "registration will be ignored.")));
        assertTrue(filter.isLoggable(new java.util.logging.LogRecord(java.util.logging.Level.WARNING,
                "This Gauge has been already registered (MeterId{name='seaweedfs.test.gauge', tags=[]}), the "
                        + "registration will be ignored.")));
    }

    @Test
    void theBuildVersionIsAMetric() {
        RdmaMetrics metrics = RdmaMetrics.create();
        metrics.registerBuildInfo("1.2.3-test");
        assertTrue(metrics.scrape().contains("seaweedfs_rdma_build_info{version=\"1.2.3-test\"} 1"), metrics.scrape());
    }

    @Test
    void readMetersUseBoundedTags() {
        RdmaMetrics metrics = RdmaMetrics.create();
        ReadMeters read = metrics.read();
        read.recordRead("rdma", "ok", 1_000_000);
        read.recordRead("3,01637037d6", "whatever", 1_000_000);
        read.recordBytesServed("http", 4096);
        read.bindNeedleMapSize("a:1", () -> 42);
        read.bindAgentState("a:1", () -> "up");
        String text = metrics.scrape();
        assertTrue(text.contains("seaweedfs_rdma_read_latency_seconds_bucket{result=\"ok\",source=\"rdma\""), text);
        assertTrue(text.contains("seaweedfs_rdma_read_latency_seconds_count{result=\"other\",source=\"other\"} 1"),
                text);
        assertFalse(text.contains("01637037d6"));
        assertTrue(text.contains("seaweedfs_rdma_read_bytes_sum{source=\"http\"} 4096"), text);
        assertTrue(text.contains("seaweedfs_rdma_needle_map_size{agent=\"a:1\"} 42"), text);
        assertTrue(text.contains("seaweedfs_rdma_agent_state{agent=\"a:1\",state=\"up\"} 1"), text);
        assertTrue(text.contains("seaweedfs_rdma_agent_state{agent=\"a:1\",state=\"down\"} 0"), text);
    }

    @Test
    void metricsEndpointServesVertxAndReadMetersButNotItself() throws Exception {
        RdmaMetrics metrics = RdmaMetrics.create();
        Vertx vertx = metrics.newVertx(new VertxOptions());
        try {
            RdmaConfig config = ConfigLoader.fromEnvironment(Map.of(
                    "SEAWEEDFS_RDMA_HTTP_HOST", "127.0.0.1", "SEAWEEDFS_RDMA_HTTP_PORT", "1"));
            InMemoryNeedleSource source = new InMemoryNeedleSource(vertx);
            source.put(FileId.parse("3,01637037d6"), "bytes".getBytes(), "", "", 0, Map.of());
            HttpApiContext base = HttpApiContext.create(source, new FixedReadPathStatus(),
                    new Admission(config.sidecar().maxInFlightReads()), config, metrics);
            HttpApiContext api = new HttpApiContext(base.source(), base.status(),
                    new HttpConfig("127.0.0.1", 0, 1, null), base.maxNeedleBytes(),
                    base.admission(), base.meters(), base.scrapeRegistry());
            HttpApiVerticle verticle = new HttpApiVerticle(api);
            vertx.deployVerticle(verticle).await(10, TimeUnit.SECONDS);
            WebClient client = WebClient.create(vertx);
            int port = verticle.actualPort();
            for (String uri : List.of("/3,01637037d6", "/metrics", "/metrics")) {
                client.get(port, "127.0.0.1", uri).send().await(10, TimeUnit.SECONDS);
            }
            HttpResponse<Buffer> r = client.get(port, "127.0.0.1", "/metrics").send().await(10, TimeUnit.SECONDS);
            assertEquals(200, r.statusCode());
            assertTrue(r.getHeader("Content-Type").startsWith("text/plain"), r.getHeader("Content-Type"));
            String text = r.bodyAsString();
            assertTrue(text.contains("seaweedfs_rdma_read_latency_seconds_count{result=\"ok\",source=\"rdma\"} 1"),
                    text);
            assertTrue(text.contains("seaweedfs_rdma_reads_in_flight"), text);
            assertTrue(text.contains("vertx_http_server_requests_total"), text);
            assertTrue(text.contains("vertx_http_server_requests_total{code=\"200\",method=\"GET\",route=\"\"} 1.0"),
                    text);
            assertFalse(text.contains("route=\"/metrics\""), text);
        } finally {
            vertx.close().await(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void garbageCollectionsAreReadFromTheJvmWhenScraped() {
        RdmaMetrics metrics = RdmaMetrics.create();
        System.gc(); // at least one collection to count, whatever the collector
        String text = metrics.scrape();
        assertTrue(text.lines().anyMatch(l -> l.startsWith("jvm_gc_collection_seconds_count{gc=\"")
                && Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)) >= 1), text);
        assertTrue(text.contains("jvm_gc_collection_seconds_sum{gc=\""), text);
    }
}
