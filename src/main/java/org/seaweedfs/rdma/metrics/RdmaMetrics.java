package org.seaweedfs.rdma.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.Label;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.micrometer.VertxPrometheusOptions;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The process's Prometheus registry, Vert.x's own metrics wired into it, and the read path's meters.
 * Build Vert.x with {@link #newVertx(VertxOptions)} so HTTP server, event bus and pool metrics land in
 * the same registry that {@code /metrics} scrapes.
 */
public final class RdmaMetrics implements AutoCloseable {

    /** Route of the scrape endpoint, left out of the HTTP server metrics. */
    public static final String SCRAPE_ROUTE = "/metrics";

    /** Names each instance's registry for vertx-micrometer, which keeps registries in a JVM-wide map by name. */
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    /** Where every meter goes. */
    private final MeterRegistry registry;
    /** What {@code /metrics} serves: {@link #registry} when it is a Prometheus one, else null (no endpoint). */
    private final PrometheusMeterRegistry scrapeRegistry;
    private final ReadMeters readMeters;
    /**
     * Vert.x's HTTP server and event-bus meters, shared by every Vert.x instance built here ({@link
     * VertxMetersFactory}).
     */
    private final HttpServerMeters httpServerMeters;
    private final EventBusMeters eventBusMeters;
    private final String registryName = "seaweedfs-rdma-" + INSTANCES.incrementAndGet();

    private RdmaMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.scrapeRegistry = registry instanceof PrometheusMeterRegistry p ? p : null;
        this.readMeters = new ReadMeters(registry);
        this.httpServerMeters = new HttpServerMeters(registry);
        this.eventBusMeters = new EventBusMeters(registry);
        bindProcessMetrics();
    }

    /** The JVM's and the process's own meters (memory, GC, threads, classes, CPU, uptime, file descriptors). */
    private void bindProcessMetrics() {
        new JvmMemoryMetrics().bindTo(registry);
        GcMeters.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
    }

    /**
     * Releases nothing today: every meter is read when scraped (GC meters included, see {@link GcMeters}); kept so
     * that callers closing their metrics need not change if a meter ever holds a listener again.
     */
    @Override
    public void close() {
    }

    /**
     * Meters into an application's own registry (any Micrometer registry; its filters and tags stay the app's).
     * When it is a {@link PrometheusMeterRegistry}, the HTTP API's {@code /metrics} serves it; otherwise the app
     * publishes it its own way and {@code /metrics} answers 404.
     */
    public static RdmaMetrics on(MeterRegistry appRegistry) {
        VertxGaugeRegistrationFilter.install();
        return new RdmaMetrics(java.util.Objects.requireNonNull(appRegistry, "appRegistry"));
    }

    public static RdmaMetrics create() {
        VertxGaugeRegistrationFilter.install();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        // Scrapes would otherwise count themselves; the route tag is bounded (route patterns only).
        registry.config().meterFilter(MeterFilter.deny(id ->
                id.getName().startsWith("vertx.http.server") && SCRAPE_ROUTE.equals(id.getTag("route"))));
        return new RdmaMetrics(registry);
    }

    /** Always 1, labelled with the build's version (the composition root knows it; this package does not). */
    public void registerBuildInfo(String version) {
        Gauge.builder("seaweedfs.rdma.build.info", () -> 1).description("Always 1; the version label is the build's")
                .tag("version", version).register(registry);
    }

    /**
     * Vert.x metrics options publishing into this registry (HTTP server metrics tagged by route, never path). The
     * registry name is this instance's own: under the default name a second Vert.x in the JVM (an agent and a
     * sidecar side by side, an embedding application) would publish into the first one's registry.
     */
    public MicrometerMetricsOptions vertxMetricsOptions() {
        return new MicrometerMetricsOptions()
                .setEnabled(true)
                .setRegistryName(registryName)
                .setPrometheusOptions(new VertxPrometheusOptions().setEnabled(scrapeRegistry != null))
                .addLabels(Label.HTTP_ROUTE, Label.HTTP_METHOD, Label.HTTP_CODE);
    }

    /** A Vert.x instance whose metrics go to this registry. */
    public Vertx newVertx(VertxOptions options) {
        return vertxBuilder(options).build();
    }

    /** A Vert.x builder whose metrics go to this registry (add a cluster manager and {@code buildClustered()}). */
    public VertxBuilder vertxBuilder(VertxOptions options) {
        return Vertx.builder()
                .with(new VertxOptions(options).setMetricsOptions(vertxMetricsOptions()))
                .withMetrics(new VertxMetersFactory(registry, httpServerMeters, eventBusMeters));
    }

    /** The Prometheus registry {@code /metrics} serves; null when bound to an app's non-Prometheus registry. */
    public PrometheusMeterRegistry registry() {
        return scrapeRegistry;
    }

    /** The registry every meter is registered in (the app's with {@link #on(MeterRegistry)}). */
    public MeterRegistry meterRegistry() {
        return registry;
    }

    public ReadMeters read() {
        return readMeters;
    }

    /** Prometheus text exposition of everything registered. */
    public String scrape() {
        if (scrapeRegistry == null) {
            throw new IllegalStateException("bound to a registry that is not Prometheus: nothing to scrape here");
        }
        return scrapeRegistry.scrape();
    }
}
