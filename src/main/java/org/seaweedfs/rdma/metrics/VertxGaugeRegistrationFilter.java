package org.seaweedfs.rdma.metrics;

import java.util.logging.Filter;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Drops Micrometer's "This Gauge has been already registered (MeterId{name='vertx....'})" warning, and only that
 * one, knowingly. vertx-micrometer-metrics 5.0.x registers its gauges (event-bus handlers and pending messages, pool
 * queues, connections) again on every use to find their LongAdder, by design; Micrometer 1.13.9+ warns on the first
 * repeat (micrometer#5617). Both projects know (vert-x3/vertx-micrometer-metrics#259,
 * micrometer-metrics/micrometer#6931);
 * nothing is wrong with the meters, but operators saw a warning at every start. A repeated registration of any other
 * gauge (ours included) still warns. Applies where Micrometer logs through java.util.logging (no SLF4J provider, as
 * in this jar); an embedding application with its own SLF4J backend filters it there if it wants.
 */
public final class VertxGaugeRegistrationFilter implements Filter {

    /** The logger Micrometer's MeterRegistry warns through; held strongly so the filter is not lost with it. */
    private static final Logger METER_REGISTRY_LOG = Logger.getLogger("io.micrometer.core.instrument.MeterRegistry");

    /** The filter that was set before this one (consulted after it), or null. */
    private final Filter next;

    private VertxGaugeRegistrationFilter(Filter next) {
        this.next = next;
    }

    /** Installs the filter once per JVM (idempotent), keeping a filter someone else set. */
    static synchronized void install() {
        Filter current = METER_REGISTRY_LOG.getFilter();
        if (current instanceof VertxGaugeRegistrationFilter) {
            return;
        }
        METER_REGISTRY_LOG.setFilter(new VertxGaugeRegistrationFilter(current));
    }

    @Override
    public boolean isLoggable(LogRecord record) {
        return !isVertxGaugeRepeat(record.getMessage()) && (next == null || next.isLoggable(record));
    }

    /** True for Micrometer's warning about a repeated vertx-micrometer gauge (for a filter in another backend too). */
    public static boolean isVertxGaugeRepeat(String message) {
        return message != null && message.startsWith("This Gauge has been already registered")
                && message.contains("name='vertx.");
    }
}
