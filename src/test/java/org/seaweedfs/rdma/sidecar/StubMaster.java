package org.seaweedfs.rdma.sidecar;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.seaweedfs.rdma.testing.TestCertificates;

/**
 * STAND-IN for the SeaweedFS master (which cannot run here): answers its documented
 * {@code GET /dir/lookup?volumeId=<vid>} with {@code {"volumeOrRootId":"<vid>","locations":[{"url","publicUrl"}]}},
 * and an unknown volume as the real master does: 404 with {@code {"volumeOrRootId":"<vid>","error":"..."}}.
 * Tests set the locations, count lookups, and make it fail.
 */
public final class StubMaster {

    private final Vertx vertx;
    private final Map<Long, List<String>> locations = new ConcurrentHashMap<>();
    private final AtomicInteger lookups = new AtomicInteger();
    private volatile int failWith;
    private HttpServer server;
    private HttpServerOptions options = new HttpServerOptions();

    public StubMaster(Vertx vertx) {
        this.vertx = vertx;
    }

    /** Serve HTTPS with {@code cert} (call before start); see {@link TestCertificates.Issued#serverOptions}. */
    public StubMaster https(TestCertificates.Issued cert, Path clientCa) {
        options = cert.serverOptions(clientCa);
        return this;
    }

    public Future<StubMaster> start() {
        return start("127.0.0.1", 0);
    }

    /** As {@link #start()}, listening on {@code host:port} (0: any port). */
    public Future<StubMaster> start(String host, int port) {
        server = vertx.createHttpServer(options).requestHandler(request -> {
            if (!"/dir/lookup".equals(request.path())) {
                request.response().setStatusCode(404).end();
                return;
            }
            lookups.incrementAndGet();
            if (failWith != 0) {
                request.response().setStatusCode(failWith).end("{\"error\":\"stub failure\"}");
                return;
            }
            String vid = request.getParam("volumeId");
            List<String> urls;
            try {
                urls = locations.get(Long.parseLong(vid));
            } catch (NumberFormatException | NullPointerException e) {
                request.response().setStatusCode(400).end(new JsonObject().put("error", "Unknown volume id "
                        + vid).encode());
                return;
            }
            if (urls == null) {
                request.response().setStatusCode(404).putHeader("Content-Type", "application/json")
                        .end(new JsonObject().put("volumeOrRootId", vid).put("error", "volume id " + vid
                                + " not found").encode());
                return;
            }
            JsonArray locs = new JsonArray();
            urls.forEach(u -> locs.add(new JsonObject().put("url", u).put("publicUrl", u)));
            request.response().putHeader("Content-Type", "application/json")
                    .end(new JsonObject().put("volumeOrRootId", vid).put("locations", locs).encode());
        });
        return server.listen(port, host).map(s -> this);
    }

    public int port() {
        return server.actualPort();
    }

    /** Where the master says {@code volumeId} lives (host:port of volume servers, in order). */
    public void locate(long volumeId, String... urls) {
        locations.put(volumeId, List.of(urls));
    }

    /** Every lookup answers this HTTP status (0: answer normally). */
    public void failWith(int status) {
        failWith = status;
    }

    public int lookups() {
        return lookups.get();
    }

    public Future<Void> stop() {
        return server == null ? Future.succeededFuture() : server.close();
    }
}
