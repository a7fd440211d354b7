package org.seaweedfs.rdma.http;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.KeyCertOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.micrometer.PrometheusScrapingHandler;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;
import org.seaweedfs.rdma.metrics.RdmaMetrics;
import org.seaweedfs.rdma.polling.AwakeLoop;
import org.seaweedfs.rdma.polling.PollingPolicy;

/**
 * The process's HTTP API. In every role: {@code /health}, {@code /ready}, {@code /status}, {@code /metrics} and the
 * status page {@code /ui}; where the sidecar runs also needle URLs (GET/HEAD, volume-server semantics),
 * {@code /read} (weed mount), {@code POST /batch} (many needles as a tar stream) and {@code /status/history}.
 * Several instances may share the port; give them all the same {@link HttpApiContext}.
 */
public final class HttpApiVerticle extends VerticleBase {

    private static final Logger LOG = LoggerFactory.getLogger(HttpApiVerticle.class);
    /** In-flight requests get this long to finish when the verticle stops. */
    private static final long SHUTDOWN_GRACE_SECONDS = 5;
    private final HttpApiContext api;
    private final int idlePollMicros;
    private final KeyCertOptions tls;
    private HttpServer server;
    private AwakeLoop awake;

    /**
     * @param idlePollMicros how long the loop keeps polling after a needle answer ({@link PollingPolicy})
     * @param tls            the certificate and key of an HTTPS listener ({@code http.tlsCert}, {@code http.tlsKey});
     *                       null: plain HTTP
     */
    public HttpApiVerticle(HttpApiContext api, int idlePollMicros, KeyCertOptions tls) {
        this.api = api;
        this.idlePollMicros = idlePollMicros;
        this.tls = tls;
    }

    /** Plain HTTP. */
    public HttpApiVerticle(HttpApiContext api, int idlePollMicros) {
        this(api, idlePollMicros, null);
    }

    /** With the default idle-poll time. */
    public HttpApiVerticle(HttpApiContext api) {
        this(api, PollingPolicy.DEFAULT_MICROS);
    }

    /** The status page, a classpath resource (one self-contained HTML file). */
    static final String UI_PAGE = "org/seaweedfs/rdma/http/status-page.html";

    @Override
    public Future<?> start() {
        // Read from the class path on a worker thread: no blocking read on the event loop. Not through Vert.x's file
        // system, whose first classpath resolution in a large jar took about a second of the sidecar's start-up.
        return vertx.executeBlocking(HttpApiVerticle::uiPage, false).compose(this::listen);
    }

    private static Buffer uiPage() throws IOException {
        try (InputStream in = HttpApiVerticle.class.getClassLoader().getResourceAsStream(UI_PAGE)) {
            if (in == null) {
                throw new FileNotFoundException("class path resource " + UI_PAGE);
            }
            return Buffer.buffer(in.readAllBytes());
        }
    }

    private Future<?> listen(Buffer page) {
        JwtReadAuth auth = JwtReadAuth.create(vertx, api.http().jwtReadKey());
        StatusHandlers status = new StatusHandlers(api);
        ConnectionDeadlines deadlines = new ConnectionDeadlines(vertx, api.connections());
        awake = new AwakeLoop(context, idlePollMicros);
        Router router = Router.router(vertx);
        router.route().handler(ctx -> {
            HttpConnection connection = ctx.request().connection();
            ctx.addEndHandler(done -> deadlines.requestEnded(connection));
            ctx.next();
        });
        router.options().handler(Cors::preflight);
        router.get("/health").handler(status::health);
        router.get("/ready").handler(status::ready);
        router.get("/status").handler(status::status);
        router.get("/status/history").handler(status::history);
        router.get("/ui").handler(ctx -> ctx.response()
                .putHeader("Content-Type", "text/html; charset=utf-8")
                .putHeader("Cache-Control", "no-cache")
                .end(page));
        router.get(RdmaMetrics.SCRAPE_ROUTE).handler(api.scrapeRegistry() != null
                ? PrometheusScrapingHandler.create(api.scrapeRegistry())
                : ctx -> routeError(ctx, 404, "metrics are disabled (metrics.enabled: false)"));
        NeedleHandler needles = api.sidecar() ? new NeedleHandler(vertx, api, auth) : null;
        if (needles != null) {
            router.get("/read").handler(new ReadSliceHandler(api, auth));
            router.post("/batch").handler(new BatchHandler(vertx, api, auth));
            router.route().method(HttpMethod.GET).method(HttpMethod.HEAD).handler(needles);
        } else {
            router.route().method(HttpMethod.GET).method(HttpMethod.HEAD).handler(ctx -> routeError(ctx, 404,
                    "no such resource (needles are served only where the sidecar role runs)"));
        }
        router.errorHandler(404, ctx -> routeError(ctx, 404, "no such resource"));
        router.errorHandler(405, ctx -> routeError(ctx, 405, "method not allowed"));
        router.errorHandler(500, ctx -> internalError(ctx.request(), ctx.failure()));
        HttpServerOptions options = new HttpServerOptions()
                .setHost(api.http().host())
                .setPort(api.http().port())
                // No WebSockets are served: no WebSocket compression handler in every connection's pipeline.
                .setPerMessageWebSocketCompressionSupported(false)
                .setPerFrameWebSocketCompressionSupported(false)
                // Clear-text HTTP/2 would hold a connection back (no connection handler, so no header deadline)
                // until its first request head is complete; the API is HTTP/1.1.
                .setHttp2ClearTextEnabled(false)
                // Every answer is written on its connection's event loop (completions come back on the caller's
                // context): Vert.x then writes straight to the channel, without its cross-thread outbound queue.
                .setStrictThreadMode(true);
        // No idle timeout here: ConnectionDeadlines keeps http.idleTimeout with its sweep, without a listener on
        // every write.
        if (tls != null) {
            // HTTPS for HTTP/1.1 only (no ALPN): the same API, with the JWTs it carries encrypted.
            options.setSsl(true).setKeyCertOptions(tls);
        }
        server = vertx.createHttpServer(options);
        return server.connectionHandler(deadlines::connected).requestHandler(request -> {
                    HttpConnection connection = request.connection();
                    deadlines.requestStarted(request);
                    Cors.apply(request);
                    if (needles != null && NeedleHandler.isNeedleRead(request)) {
                        request.response().endHandler(v -> {
                            deadlines.requestEnded(connection);
                            awake.answered();
                        });
                        needles.serve(request);
                    } else {
                        router.handle(request);
                    }
                }).listen()
                .onSuccess(s -> LOG.info("HTTP API listening on " + (tls != null ? "https://" : "http://")
                        + api.http().host() + ":" + s.actualPort()));
    }

    @Override
    public Future<?> stop() {
        return server == null ? Future.succeededFuture() : server.shutdown(SHUTDOWN_GRACE_SECONDS, TimeUnit.SECONDS);
    }

    /** Needle answers after which this verticle's loop stayed awake, read on the loop (tests). */
    Future<Long> awakeAnswers() {
        Promise<Long> answers = Promise.promise();
        context.runOnContext(v -> answers.complete(awake.answers()));
        return answers.future();
    }

    /** The port listened on (useful with port 0). */
    public int actualPort() {
        return server.actualPort();
    }

    /** Logs a request that failed unexpectedly and answers 500 (if nothing was sent yet). */
    static void internalError(HttpServerRequest request, Throwable failure) {
        LOG.error("request " + request.method() + " " + request.path() + " failed", failure);
        HttpErrors.send(request.response(), 500, "internal error");
    }

    private static void routeError(RoutingContext ctx, int code, String message) {
        HttpErrors.send(ctx.response(), code, message);
    }
}
