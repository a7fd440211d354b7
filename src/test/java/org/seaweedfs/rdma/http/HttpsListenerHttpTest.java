package org.seaweedfs.rdma.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.junit5.VertxExtension;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.sidecar.Admission;
import org.seaweedfs.rdma.config.HttpConfig;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.FixedReadPathStatus;
import org.seaweedfs.rdma.sidecar.InMemoryNeedleSource;
import org.seaweedfs.rdma.testing.TestCertificates;
import org.seaweedfs.rdma.tls.TlsFiles;
import org.seaweedfs.rdma.volume.FileId;

/** The API over HTTPS ({@code http.tlsCert}, {@code http.tlsKey}): same answers, keep-alive, no plain HTTP. */
@ExtendWith(VertxExtension.class)
class HttpsListenerHttpTest {

    private static final FileId FID = FileId.parse("3,01637037d6");
    private static final byte[] TEXT = "hello over tls, 0123456789".getBytes();

    @TempDir
    Path dir;

    private Vertx vertx;
    private HttpClient client;
    private int port;

    /** The response of {@code GET uri} and the connection it came on. */
    private record Answer(int status, String body, HttpConnection connection) {
    }

    @BeforeEach
    void deploy(Vertx vertx) throws Exception {
        this.vertx = vertx;
        TestCertificates ca = TestCertificates.authority(dir, "api CA");
        TestCertificates.Issued cert = ca.server("sidecar");
        InMemoryNeedleSource source = new InMemoryNeedleSource(vertx);
        source.put(FID, TEXT, "hello.txt", "text/plain", 1_700_000_000L, Map.of());
        HttpApiContext api = new HttpApiContext(source, new FixedReadPathStatus(),
                new HttpConfig("127.0.0.1", 0, 1, null), 1 << 20, new Admission(16), ReadMeters.noop(), null);
        HttpApiVerticle verticle = new HttpApiVerticle(api, 0, TlsFiles.listener(vertx, "http.tlsCert",
                cert.cert().toString(), "http.tlsKey", cert.key().toString()));
        vertx.deployVerticle(verticle).await(10, TimeUnit.SECONDS);
        port = verticle.actualPort();
        client = vertx.createHttpClient(new HttpClientOptions().setSsl(true).setVerifyHost(true).setKeepAlive(true)
                .setTrustOptions(new PemTrustOptions().addCertPath(ca.certFile().toString())),
                new PoolOptions().setHttp1MaxSize(1));
    }

    @AfterEach
    void close() {
        await(client.close());
    }

    private Answer get(HttpClient http, String uri) {
        return await(http.request(HttpMethod.GET, port, "127.0.0.1", uri).compose(request -> request.send()
                .compose(response -> response.body().map(body -> new Answer(response.statusCode(),
                        body.toString(), request.connection())))));
    }

    @Test
    void theMountsReadContractWorksOverOneKeptAliveConnection() {
        Answer first = get(client, "/read?file_id=3,01637037d6&offset=6&size=4&volume_server=http://10.0.0.1:8080");
        Answer second = get(client, "/read?file_id=3,01637037d6&offset=0&size=5");
        assertEquals(200, first.status());
        assertEquals("over", first.body());
        assertEquals("hello", second.body());
        assertSame(first.connection(), second.connection(), "HTTP/1.1 keep-alive over TLS");
        assertEquals(200, get(client, "/3,01637037d6").status());
        assertEquals(200, get(client, "/health").status());
    }

    @Test
    void plainHttpIsNotServed() {
        HttpClient plain = vertx.createHttpClient(new HttpClientOptions());
        try {
            assertThrows(RuntimeException.class, () -> get(plain, "/health"));
        } finally {
            await(plain.close());
        }
    }

    @Test
    void aClientThatDoesNotTrustTheCertificateIsRefused() {
        HttpClient untrusting = vertx.createHttpClient(new HttpClientOptions().setSsl(true));
        try {
            assertThrows(RuntimeException.class, () -> get(untrusting, "/health"));
        } finally {
            await(untrusting.close());
        }
    }
}
