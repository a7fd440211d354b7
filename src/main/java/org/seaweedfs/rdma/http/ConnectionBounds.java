package org.seaweedfs.rdma.http;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicLong;
import org.seaweedfs.rdma.config.HttpConfig;

/**
 * What bounds the HTTP connections of every HttpApiVerticle instance sharing it: how many may be open at
 * once (one more is closed as soon as it is accepted) and how long a request's headers may take. Counts
 * what it refused and closed, exposed as {@code seaweedfs.rdma.http.connections.*}.
 */
public final class ConnectionBounds {

    private final long headerTimeoutMillis;
    private final Admission slots;
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong headerTimeouts = new AtomicLong();

    public ConnectionBounds(HttpConfig http, MeterRegistry registry) {
        this.slots = new Admission(http.maxConnections());
        this.headerTimeoutMillis = Math.max(1, http.headerTimeout().toMillis());
        Gauge.builder("seaweedfs.rdma.http.connections.open", slots, Admission::inFlight)
                .description("HTTP connections open").register(registry);
        FunctionCounter.builder("seaweedfs.rdma.http.connections.refused", refused, AtomicLong::get)
                .description("HTTP connections closed at once because http.maxConnections were open")
                        .register(registry);
        FunctionCounter.builder("seaweedfs.rdma.http.connections.header.timeouts", headerTimeouts, AtomicLong::get)
                .description("HTTP connections closed because a request's headers took longer than http.headerTimeout")
                .register(registry);
    }

    /** Takes a connection slot; false (and counted as refused) when all are taken. */
    boolean tryOpen() {
        if (slots.tryAcquire()) {
            return true;
        }
        refused.incrementAndGet();
        return false;
    }

    void closed() {
        slots.release();
    }

    void headerTimedOut() {
        headerTimeouts.incrementAndGet();
    }

    long headerTimeoutMillis() {
        return headerTimeoutMillis;
    }

    public int open() {
        return slots.inFlight();
    }

    public long refused() {
        return refused.get();
    }

    public long headerTimeouts() {
        return headerTimeouts.get();
    }
}
