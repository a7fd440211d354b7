package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.junit5.VertxExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.sidecar.StubMaster;
import org.seaweedfs.rdma.sidecar.StubVolumeServer;
import org.seaweedfs.rdma.testing.TestCertificates;
import org.seaweedfs.rdma.volume.Fixtures;

/**
 * A sidecar in a cluster secured with security.toml, end to end: its API over HTTPS ({@code http.tlsCert}), an
 * agent serving volume 1 over UCX, and volume 2 only on a volume server that serves HTTPS to clients with a
 * certificate, found through a master that serves HTTPS ({@code sidecar.securityToml}). Volume 1's needles are
 * SeaweedFS's own fixture files, gzip-compressed ones among them.
 */
@ExtendWith(VertxExtension.class)
class TlsEndToEndTest {

    /** Fixture README: command.go of volume 1, gzip-compressed. */
    private static final String COMMAND_GO = "1,01bb51ad02";
    /** Fixture README: file_2 of volume 2, not compressed. */
    private static final String FILE_2 = "2,0306bfd555";

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();

    /** A response's status, headers of interest, body and the connection it came on. */
    private record Answer(int status, String source, String rdmaUsed, byte[] body, HttpConnection connection) {
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private static Answer get(HttpClient client, int port, String uri) {
        return await(client.request(HttpMethod.GET, port, "127.0.0.1", uri).compose(request -> request.send()
                .compose(r -> r.body().map(body -> new Answer(r.statusCode(), r.getHeader("X-Source"),
                        r.getHeader("X-RDMA-Used"), body.getBytes(), request.connection())))));
    }

    @Test
    void readsOverHttpsFromRdmaAndFromAnHttpsVolumeServer(Vertx vertx) throws Exception {
        Path all = Fixtures.copyDir("volumes", Files.createDirectory(dir.resolve("all")));
        Path agentDir = Files.createDirectory(dir.resolve("agent"));
        Files.copy(all.resolve("1.dat"), agentDir.resolve("1.dat"));
        Files.copy(all.resolve("1.idx"), agentDir.resolve("1.idx"));
        Path certs = Files.createDirectory(dir.resolve("certs"));
        TestCertificates ca = TestCertificates.authority(certs, "cluster CA");
        StubVolumeServer volumeServer = await(new StubVolumeServer(vertx)
                .https(ca.server("volume"), ca.certFile()).start(all));
        open.add(() -> await(volumeServer.stop()));
        StubMaster master = await(new StubMaster(vertx).https(ca.server("master"), null).start());
        open.add(() -> await(master.stop()));
        master.locate(2, volumeServer.url());
        ca.client("sidecar");
        TestCertificates.Issued api = ca.server("api");
        Path toml = Files.writeString(certs.resolve("security.toml"), """
                [https.client]
                enabled = true
                ca = "cluster-CA.crt"
                cert = "sidecar.crt"
                key = "sidecar.key"
                """);
        Stack agent = Stack.agent(agentDir, 0);
        open.add(agent);
        Stack sidecar = Stack.sidecar(agent.agentPort(),
                "  master: '127.0.0.1:" + master.port() + "'\n  securityToml: '" + toml + "'\n",
                ", tlsCert: '" + api.cert() + "', tlsKey: '" + api.key() + "'");
        open.add(sidecar);
        HttpClient client = vertx.createHttpClient(new HttpClientOptions().setSsl(true).setKeepAlive(true)
                .setTrustOptions(new PemTrustOptions().addCertPath(ca.certFile().toString())),
                new PoolOptions().setHttp1MaxSize(1));
        open.add(() -> await(client.close()));
        int port = sidecar.httpPort();

        byte[] plain = FixtureNeedles.live(all, 1).stream().filter(e -> e.fid().toString().equals(COMMAND_GO))
                .findFirst().orElseThrow().plain();
        // weed mount's /read of a gzip-stored needle: the slice of the file's (decompressed) bytes.
        Answer slice = get(client, port, "/read?file_id=" + COMMAND_GO + "&offset=100&size=300&volume_server=http://"
                + volumeServer.url());
        assertEquals(200, slice.status());
        assertEquals("true", slice.rdmaUsed());
        assertArrayEquals(Arrays.copyOfRange(plain, 100, 400), slice.body());

        // Volume 2 is on no agent: the HTTP fallback asks the master and the volume server, both over HTTPS.
        Answer fallback = get(client, port, "/" + FILE_2);
        assertEquals(200, fallback.status());
        assertEquals("http", fallback.source());
        assertArrayEquals(FixtureNeedles.live(all, 2).stream().filter(e -> e.fid().toString().equals(FILE_2))
                .findFirst().orElseThrow().plain(), fallback.body());
        assertEquals(1, master.lookups());
        assertTrue(volumeServer.requests() >= 1);
        assertSame(slice.connection(), fallback.connection(), "one kept-alive HTTPS connection");
    }
}
