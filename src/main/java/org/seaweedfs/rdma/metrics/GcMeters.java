package org.seaweedfs.rdma.metrics;

import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

/**
 * Garbage collections per collector, read from the JVM's counters when scraped: {@code jvm_gc_collection_seconds}
 * (count and total time, tag {@code gc}, as the Prometheus JVM exporter names them). Micrometer's JvmGcMetrics
 * listens to a JMX notification per collection instead, and under load the sidecar collects several times a second:
 * each notification is converted through open MBeans on a notification thread, work the JIT kept recompiling in the
 * profiled runs. Here nothing runs between scrapes.
 */
final class GcMeters {

    private GcMeters() {
    }

    static void bindTo(MeterRegistry registry) {
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            FunctionTimer.builder("jvm.gc.collection", gc,
                            b -> Math.max(0, b.getCollectionCount()), b -> Math.max(0, b.getCollectionTime()),
                            TimeUnit.MILLISECONDS)
                    .description("Garbage collections of this collector and the time they took (pauses, and for"
                            + " concurrent collectors their cycles)")
                    .tag("gc", gc.getName())
                    .register(registry);
        }
    }
}
