package org.seaweedfs.rdma.metrics;

import static org.junit.jupiter.api.Assertions.*;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.eventbus.ReplyException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.testing.Await;

/**
 * Vert.x's HTTP server and event-bus meters as recorded by HttpServerMeters and EventBusMeters, through a real Vert.x.
 */
class VertxMetersTest {

    private RdmaMetrics metrics;
    private MeterRegistry registry;
    private Vertx vertx;

    @BeforeEach
    void start() {
        metrics = RdmaMetrics.create();
        registry = metrics.meterRegistry();
        vertx = metrics.newVertx(new VertxOptions());
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().await(10, TimeUnit.SECONDS);
    }

    @Test
    void httpServerRequestsAreCountedByMethodCodeAndRouteWithSizesAndTimes() throws Exception {
        HttpServer server = vertx.createHttpServer().requestHandler(request -> request.body().onSuccess(body ->
                request.response().setStatusCode(request.path().equals("/missing") ? 404 : 200).end("hello"))).listen(0,
                        "127.0.0.1")
                .await(10, TimeUnit.SECONDS);
        // A connection per request: no reuse of a pooled connection the server may be closing.
        HttpClient client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(false));
        int port = server.actualPort();
        send(client, port, HttpMethod.GET, "/a", "");
        send(client, port, HttpMethod.GET, "/b", "");
        send(client, port, HttpMethod.POST, "/a", "12345678");
        send(client, port, HttpMethod.GET, "/missing", "");
        send(client, port, HttpMethod.GET, "/c", ""); // back to 200 after a 404: each method remembers its last meters
        send(client, port, HttpMethod.valueOf("PURGE"), "/a", "");

        assertEquals(3.0, count("vertx.http.server.requests", "GET", "200"));
        assertEquals(1.0, count("vertx.http.server.requests", "GET", "404"));
        assertEquals(1.0, count("vertx.http.server.requests", "POST", "200"));
        assertEquals(1.0, count("vertx.http.server.requests", "OTHER", "200"),
                "a non-standard method is one bounded tag value");
        assertEquals(3,
                registry.get("vertx.http.server.response.time").tags("route", "", "method", "GET", "code", "200")
                .timer().count());
        assertEquals(15.0,
                registry.get("vertx.http.server.response.bytes").tags("route", "", "method", "GET", "code", "200")
                .summary().totalAmount());
        assertEquals(8.0,
                registry.get("vertx.http.server.request.bytes").tag("method", "POST").summary().totalAmount());
        assertEquals(0.0, registry.get("vertx.http.server.active.requests").tag("method", "GET").gauge().value());
        assertTrue(registry.get("vertx.http.server.bytes.written").counter().count() >= 5 * 5,
                "bodies and heads written");
        assertTrue(registry.get("vertx.http.server.bytes.read").counter().count() >= 8, "request bytes read");
        client.close().await(10, TimeUnit.SECONDS);
        // the server learns of the close on its event loop
        Await.until("no active connection counted",
                () -> registry.get("vertx.http.server.active.connections").gauge().value() == 0.0);
        assertTrue(metrics.scrape()
                .contains("vertx_http_server_requests_total{code=\"404\",method=\"GET\",route=\"\"} 1.0"),
                "the Prometheus names vertx-micrometer used");
    }

    private static void send(HttpClient client, int port, HttpMethod method, String uri, String body) throws Exception {
        client.request(new RequestOptions().setMethod(method).setHost("127.0.0.1").setPort(port).setURI(uri))
                .compose(request -> request.send(body)).compose(response -> response.body())
                .await(30, TimeUnit.SECONDS);
    }

    private double count(String name, String method, String code) {
        return registry.get(name).tags("route", "", "method", method, "code", code).counter().count();
    }

    @Test
    void eventBusMessagesAreCountedBySideAndRepliesAndTheirAddressesAreNot() throws Exception {
        vertx.eventBus().<String>consumer("test.meters", message -> message.reply(message.body())).completion()
                .await(10, TimeUnit.SECONDS);
        for (int i = 0; i < 3; i++) {
            assertEquals("x" + i, vertx.eventBus().request("test.meters", "x" + i).await(10, TimeUnit.SECONDS).body());
        }
        vertx.eventBus().publish("test.meters", "to all");
        Throwable noHandler = assertThrows(Throwable.class,
                () -> vertx.eventBus().request("test.nobody", "?").await(10, TimeUnit.SECONDS));
        assertInstanceOf(ReplyException.class, noHandler);

        assertEquals(4.0, side("vertx.eventbus.sent", "local"),
                "the 4 requests only: replies go to internal addresses");
        assertEquals(1.0, side("vertx.eventbus.published", "local"));
        assertEquals(5.0, side("vertx.eventbus.received", "local"),
                "3 requests, 1 publication, 1 request nobody takes");
        assertEquals(4.0, side("vertx.eventbus.delivered", "local"));
        // the publication is processed after publish returns
        Await.until("4 messages processed", () -> side("vertx.eventbus.processed", "local") >= 4.0);
        assertEquals(4.0, side("vertx.eventbus.processed", "local"));
        assertEquals(0.0, registry.get("vertx.eventbus.pending").tag("side", "local").gauge().value());
        assertEquals(1.0, registry.get("vertx.eventbus.handlers").gauge().value(),
                "the consumer; reply handlers are internal");
        assertEquals(1.0,
                registry.get("vertx.eventbus.reply.failures").tag("failure", "NO_HANDLERS").counter().count());
        assertEquals(0.0, side("vertx.eventbus.sent", "remote"));
    }

    private double side(String name, String side) {
        return registry.get(name).tag("side", side).counter().count();
    }

    @Test
    void everyVertxOfOneRegistryCountsIntoTheSameGauges() throws Exception {
        Vertx second = metrics.newVertx(new VertxOptions());
        try {
            vertx.eventBus().consumer("test.one", m -> { }).completion().await(10, TimeUnit.SECONDS);
            second.eventBus().consumer("test.two", m -> { }).completion().await(10, TimeUnit.SECONDS);
            assertEquals(2.0, registry.get("vertx.eventbus.handlers").gauge().value());
        } finally {
            second.close().await(10, TimeUnit.SECONDS);
        }
        assertEquals(1.0, registry.get("vertx.eventbus.handlers").gauge().value(),
                "the closed instance's handler is gone");
    }
}
