package org.seaweedfs.rdma.http;

import static org.seaweedfs.rdma.testing.Await.until;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.junit5.VertxExtension;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.sidecar.Admission;
import org.seaweedfs.rdma.sidecar.AdmittedSource;
import org.seaweedfs.rdma.config.HttpConfig;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.FixedReadPathStatus;
import org.seaweedfs.rdma.sidecar.InMemoryNeedleSource;
import org.seaweedfs.rdma.volume.FileId;

/** Deploys one HttpApiVerticle on a free port over the in-memory test double. */
@ExtendWith(VertxExtension.class)
abstract class HttpApiTestBase {

    static final FileId FID = FileId.parse("3,01637037d6");
    static final byte[] TEXT = "hello, seaweed world: 0123456789abcdefghijklmnopqrstuvwxyz".getBytes();
    static final long LAST_MODIFIED = 1_700_000_000L;

    Vertx vertx;
    InMemoryNeedleSource source;
    FixedReadPathStatus status;
    WebClient client;
    HttpApiContext api;
    int port;

    /** Overridable: the read key (null: no auth) and the admission limit. */
    String jwtReadKey() {
        return null;
    }

    int maxInFlight() {
        return 64;
    }

    /** http.readSliceClients (default: loopback, so this test's client). */
    java.util.List<org.seaweedfs.rdma.config.ClientNetwork> readSliceClients() {
        return HttpConfig.DEFAULT_READ_SLICE_CLIENTS;
    }

    @BeforeEach
    void deploy(Vertx vertx) throws Exception {
        this.vertx = vertx;
        source = new InMemoryNeedleSource(vertx);
        status = new FixedReadPathStatus();
        source.put(FID, TEXT, "hello.txt", "text/plain; charset=utf-8", LAST_MODIFIED, Map.of("X-Custom", "yes"));
        Admission admission = new Admission(maxInFlight());
        api = new HttpApiContext(new AdmittedSource(vertx, source, admission), status,
                new HttpConfig("127.0.0.1", 0, 1, jwtReadKey(),
                        HttpConfig.DEFAULT_HEADER_TIMEOUT, HttpConfig.DEFAULT_IDLE_TIMEOUT,
                                HttpConfig.DEFAULT_MAX_CONNECTIONS,
                        readSliceClients(), false),
                1 << 20, admission, ReadMeters.noop(), null);
        HttpApiVerticle verticle = new HttpApiVerticle(api);
        vertx.deployVerticle(verticle).await(10, TimeUnit.SECONDS);
        port = verticle.actualPort();
        client = WebClient.create(vertx, new WebClientOptions()
                .setDefaultHost("127.0.0.1").setDefaultPort(port).setDecompressionSupported(false));
    }

    HttpRequest<Buffer> get(String uri) {
        return client.request(HttpMethod.GET, uri);
    }

    /**
     * Every needle handed out was released and every admission slot returned. The server releases once
     * its last write is flushed, which may be just after the client has the response: poll for it.
     */
    void assertAllReleased() {
        until("every needle released and every admission slot returned",
                () -> source.unreleased() == 0 && api.admission().inFlight() == 0);
    }
}
