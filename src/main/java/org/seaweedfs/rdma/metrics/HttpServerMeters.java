package org.seaweedfs.rdma.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.spi.metrics.HttpServerMetrics;
import io.vertx.core.spi.observability.HttpRequest;
import io.vertx.core.spi.observability.HttpResponse;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Vert.x's HTTP server meters - the same names and tags vertx-micrometer publishes (its Vert.x 4 naming, labels
 * route, method and code) - with every meter resolved once. vertx-micrometer 5.0 builds tags and looks each meter
 * up in the registry four times per request; on the 4 KiB read path that was 16 % of the sidecar's Java profile
 * samples. Tag values are bounded: methods outside HTTP's standard set are
 * recorded as {@code OTHER}, routes are Vert.x Web route patterns (never a path), codes are three digits.
 */
final class HttpServerMeters implements HttpServerMetrics<HttpServerMeters.Exchange, Void, Object> {

    private static final String PREFIX = "vertx.http.server.";
    private static final String OTHER_METHOD = "OTHER";
    private static final Set<HttpMethod> STANDARD_METHODS = Set.copyOf(HttpMethod.values());

    private final MeterRegistry registry;
    private final AtomicLong connections = new AtomicLong();
    private final Counter bytesRead;
    private final Counter bytesWritten;
    /**
     * By standard method (others share {@link #otherMethod}, never cached here, so odd methods cannot grow the map):
     * the active-request gauge and the request-size summary, tagged by method only, as Vert.x does.
     */
    private final Map<HttpMethod, MethodMeters> byMethod = new ConcurrentHashMap<>();
    private final MethodMeters otherMethod;
    /**
     * The last request's method and its meters; an immutable memo shared by event loops, as {@link MethodMeters#last}.
     */
    private MethodMemo lastMethod;
    /** By route, method and code: count, time and response size. */
    private final Map<ResponseKey, ResponseMeters> byResponse = new ConcurrentHashMap<>();
    private final Map<String, Counter> errorsByClass = new ConcurrentHashMap<>();
    private final Map<ResetKey, Counter> resets = new ConcurrentHashMap<>();

    HttpServerMeters(MeterRegistry registry) {
        this.registry = registry;
        Gauge.builder(PREFIX + "active.connections", connections, AtomicLong::get)
                .description("Number of opened connections to the server").strongReference(true).register(registry);
        bytesRead = Counter.builder(PREFIX + "bytes.read").description("Number of bytes received by the server")
                .register(registry);
        bytesWritten = Counter.builder(PREFIX + "bytes.written").description("Number of bytes sent by the server")
                .register(registry);
        otherMethod = newMethodMeters(OTHER_METHOD);
    }

    /** One request/response exchange, from its first byte to its last. */
    static final class Exchange {
        final MethodMeters method;
        final long startNanos = System.nanoTime();
        String route;
        /** True once the active-request gauge counted this exchange out (response end or reset, whichever first). */
        boolean done;

        Exchange(MethodMeters method) {
            this.method = method;
        }
    }

    /** One method's meters, and the response meters its last response used (most responses repeat it). */
    static final class MethodMeters {
        final String name;
        final AtomicLong active;
        final DistributionSummary requestBytes;
        /** Shared by event loops without a lock: an immutable memo, so a racing reader sees a whole one. */
        ResponseMemo last;

        MethodMeters(String name, AtomicLong active, DistributionSummary requestBytes) {
            this.name = name;
            this.active = active;
            this.requestBytes = requestBytes;
        }
    }

    record ResponseMemo(String route, int code, ResponseMeters meters) {
    }

    record MethodMemo(HttpMethod method, MethodMeters meters) {
    }

    record ResponseKey(String route, String method, int code) {
    }

    record ResponseMeters(Counter requests, Timer time, DistributionSummary responseBytes) {
    }

    record ResetKey(String route, String method) {
    }

    @Override
    public Object connected(SocketAddress remoteAddress, String remoteName) {
        connections.incrementAndGet();
        return null;
    }

    @Override
    public void disconnected(Object socketMetric, SocketAddress remoteAddress) {
        connections.decrementAndGet();
    }

    @Override
    public void bytesRead(Object socketMetric, SocketAddress remoteAddress, long numberOfBytes) {
        bytesRead.increment(numberOfBytes);
    }

    @Override
    public void bytesWritten(Object socketMetric, SocketAddress remoteAddress, long numberOfBytes) {
        bytesWritten.increment(numberOfBytes);
    }

    @Override
    public void exceptionOccurred(Object socketMetric, SocketAddress remoteAddress, Throwable t) {
        errorsByClass.computeIfAbsent(t.getClass().getSimpleName(), name -> Counter.builder(PREFIX + "errors")
                .description("Number of errors").tag("class", name).register(registry)).increment();
    }

    @Override
    public Exchange requestBegin(Object socketMetric, HttpRequest request) {
        MethodMeters method = methodMeters(request.method());
        method.active.incrementAndGet();
        return new Exchange(method);
    }

    @Override
    public void requestEnd(Exchange exchange, HttpRequest request, long bytesRead) {
        exchange.method.requestBytes.record(bytesRead);
    }

    @Override
    public void requestRouted(Exchange exchange, String route) {
        if (route != null) {
            exchange.route = exchange.route == null ? route : exchange.route + ">" + route;
        }
    }

    @Override
    public void requestReset(Exchange exchange) {
        String route = routeOf(exchange);
        resets.computeIfAbsent(new ResetKey(route, exchange.method.name),
                k -> Counter.builder(PREFIX + "request.resets")
                .description("Number of request resets").tag("route", k.route()).tag("method", k.method())
                .register(registry)).increment();
        finish(exchange);
    }

    @Override
    public void responseEnd(Exchange exchange, HttpResponse response, long bytesWritten) {
        long nanos = System.nanoTime() - exchange.startNanos;
        String route = routeOf(exchange);
        int code = response.statusCode();
        MethodMeters method = exchange.method;
        ResponseMemo last = method.last;
        ResponseMeters meters;
        if (last != null && last.code() == code && last.route().equals(route)) {
            meters = last.meters();
        } else {
            meters = byResponse.computeIfAbsent(new ResponseKey(route, method.name, code), this::responseMeters);
            method.last = new ResponseMemo(route, code, meters);
        }
        meters.requests().increment();
        meters.time().record(nanos, TimeUnit.NANOSECONDS);
        meters.responseBytes().record(bytesWritten);
        finish(exchange);
    }

    private static String routeOf(Exchange exchange) {
        return exchange.route == null ? "" : exchange.route;
    }

    private static void finish(Exchange exchange) {
        if (!exchange.done) {
            exchange.done = true;
            exchange.method.active.decrementAndGet();
        }
    }

    private MethodMeters methodMeters(HttpMethod method) {
        MethodMemo memo = lastMethod;
        if (memo != null && memo.method() == method) { // almost every request repeats the last method (GET)
            return memo.meters();
        }
        MethodMeters meters = byMethod.get(method);
        if (meters == null) {
            meters = STANDARD_METHODS.contains(method)
                    ? byMethod.computeIfAbsent(method, m -> newMethodMeters(m.name()))
                    : otherMethod;
        }
        lastMethod = new MethodMemo(method, meters);
        return meters;
    }

    private MethodMeters newMethodMeters(String name) {
        AtomicLong active = new AtomicLong();
        Gauge.builder(PREFIX + "active.requests", active,
                AtomicLong::get).description("Number of requests being processed")
                .tag("method", name).strongReference(true).register(registry);
        return new MethodMeters(name, active, DistributionSummary.builder(PREFIX + "request.bytes")
                .description("Size of requests in bytes").tag("method", name).register(registry));
    }

    private ResponseMeters responseMeters(ResponseKey key) {
        String code = Integer.toString(key.code());
        return new ResponseMeters(
                Counter.builder(PREFIX + "requests").description("Number of processed requests")
                        .tag("route", key.route()).tag("method", key.method()).tag("code", code).register(registry),
                Timer.builder(PREFIX + "response.time").description("Request processing time")
                        .tag("route", key.route()).tag("method", key.method()).tag("code", code).register(registry),
                DistributionSummary.builder(PREFIX + "response.bytes").description("Size of responses in bytes")
                        .tag("route", key.route()).tag("method", key.method()).tag("code", code).register(registry));
    }
}
