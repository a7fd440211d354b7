package org.seaweedfs.rdma.http;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.seaweedfs.rdma.sidecar.Admission;
import org.seaweedfs.rdma.config.HttpConfig;

/**
 * What bounds the HTTP connections of every HttpApiVerticle instance sharing it: how many may be open at
 * once (one more is closed as soon as it is accepted), how long a request's headers may take and how
 * long a connection may sit with nothing read or written. Counts
 * what it refused and closed, exposed as {@code seaweedfs.rdma.http.connections.*}.
 */
public final class ConnectionBounds {

    private final long headerTimeoutMillis;
    private final long idleTimeoutMillis;
    private final Admission slots;
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong headerTimeouts = new AtomicLong();
    private final AtomicLong idleTimeouts = new AtomicLong();
    private final LongSupplier nanoTime;

    public ConnectionBounds(HttpConfig http, MeterRegistry registry) {
        this(http, registry, System::nanoTime);
    }

    /** @param nanoTime what the timeouts are measured by (nanoseconds, monotonic); tests move one by hand */
    ConnectionBounds(HttpConfig http, MeterRegistry registry, LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.slots = new Admission(http.maxConnections());
        this.headerTimeoutMillis = Math.max(1, http.headerTimeout().toMillis());
        this.idleTimeoutMillis = Math.max(1, http.idleTimeout().toMillis());
        Gauge.builder("seaweedfs.rdma.http.connections.open", slots, Admission::inFlight)
                .description("HTTP connections open").register(registry);
        FunctionCounter.builder("seaweedfs.rdma.http.connections.refused", refused, AtomicLong::get)
                .description("HTTP connections closed at once because http.maxConnections were open")
                        .register(registry);
        FunctionCounter.builder("seaweedfs.rdma.http.connections.header.timeouts", headerTimeouts, AtomicLong::get)
                .description("HTTP connections closed because a request's headers took longer than http.headerTimeout")
                .register(registry);
        FunctionCounter.builder("seaweedfs.rdma.http.connections.idle.timeouts", idleTimeouts, AtomicLong::get)
                .description("HTTP connections closed because nothing was read or written for http.idleTimeout")
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

    void idleTimedOut() {
        idleTimeouts.incrementAndGet();
    }

    long nanoTime() {
        return nanoTime.getAsLong();
    }

    long idleTimeoutMillis() {
        return idleTimeoutMillis;
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

    public long idleTimeouts() {
        return idleTimeouts.get();
    }
}
