package org.seaweedfs.rdma.sidecar.fallback;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.StubMaster;
import org.seaweedfs.rdma.sidecar.StubVolumeServer;
import org.seaweedfs.rdma.testing.TestCertificates;
import org.seaweedfs.rdma.tls.ClientTls;
import org.seaweedfs.rdma.tls.TlsFiles;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.VolumeWriter;

/**
 * The HTTP fallback against a cluster secured with security.toml: the master and the volume server serve HTTPS only
 * (the volume server also requires a client certificate, as {@code [https.volume] ca} makes it), and the sidecar
 * reaches both with the {@code [https.client]} settings of the same file.
 */
@ExtendWith(VertxExtension.class)
class HttpsVolumeServersTest {

    private static final FileId FID = new FileId(7, 0x31, 0x0a0b_0c0d);
    private static final byte[] DATA = "read over https".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private Vertx vertx;
    private TestCertificates ca;
    private StubMaster master;
    private StubVolumeServer volumeServer;
    private final List<WebClient> clients = new ArrayList<>();

    @BeforeEach
    void start(Vertx vertx) throws IOException {
        this.vertx = vertx;
        ca = TestCertificates.authority(dir, "cluster CA");
        Path volumes = Files.createDirectory(dir.resolve("volumes"));
        try (VolumeWriter writer = VolumeWriter.create(volumes, "", 7, 3, IndexFormat.OFFSET4)) {
            writer.append(NewNeedle.builder(FID.key(), FID.cookie(), DATA).build());
        }
        volumeServer = await(new StubVolumeServer(vertx).https(ca.server("volume"), ca.certFile()).start(volumes));
        master = await(new StubMaster(vertx).https(ca.server("master"), null).start());
        master.locate(7, volumeServer.url());
    }

    @AfterEach
    void stop() {
        clients.forEach(WebClient::close);
        await(volumeServer.stop());
        await(master.stop());
    }

    /** A security.toml whose [https.client] is {@code httpsClient}. */
    private ClientTls tls(String httpsClient) throws IOException {
        Path file = Files.writeString(dir.resolve("security.toml"), "[https.client]\n" + httpsClient);
        return TlsFiles.client(vertx, "sidecar.securityToml", file.toString());
    }

    private VolumeServerSource source(ClientTls tls) {
        Duration timeout = Duration.ofSeconds(5);
        WebClient client = VolumeServerSource.newClient(vertx, 4, tls);
        clients.add(client);
        MasterClient lookups = new MasterClient(vertx, client, new HostPort("127.0.0.1", master.port()),
                Duration.ofSeconds(60), timeout);
        return new VolumeServerSource(client, lookups, List.of(), 1 << 20, timeout);
    }

    private static byte[] bytes(NeedleContent content) {
        return content.chunks().get(0).getBytes();
    }

    @Test
    void theMasterAndTheVolumeServerAreAskedOverHttpsWithAClientCertificate() throws IOException {
        ca.client("sidecar");
        VolumeServerSource source = source(tls("enabled = true\nca = \"cluster-CA.crt\"\n"
                + "cert = \"sidecar.crt\"\nkey = \"sidecar.key\"\n"));
        assertArrayEquals(DATA, bytes(await(source.read(FID))));
        assertArrayEquals("over".getBytes(StandardCharsets.UTF_8),
                bytes(await(source.readSlice(FID, null, 5, 4, 1 << 20))), "a range over https");
        // The mount names volume servers http://host:port whatever the cluster speaks; the configuration decides.
        assertArrayEquals(DATA, bytes(await(source.read(FID, "http://" + volumeServer.url()))));
        assertArrayEquals(DATA, bytes(await(source.read(FID, "https://" + volumeServer.url() + "/"))));
        assertEquals(1, master.lookups());
        assertEquals(4, volumeServer.requests());
    }

    @Test
    void withoutTheClientCertificateTheVolumeServerRefusesTheHandshake() throws IOException {
        VolumeServerSource source = source(tls("enabled = true\nca = \"cluster-CA.crt\"\n"));
        // Refused in the handshake (TLS 1.3 tells the client after its request went out: failed or timed out).
        ReadFailure refused = assertThrows(ReadFailure.class, () -> await(source.read(FID)));
        assertTrue(refused.retriable(), refused.getMessage());
        assertEquals(1, master.lookups(), "the master, which needs no client certificate, answered over https");
        assertEquals(0, volumeServer.requests());
    }

    @Test
    void aServerCertificateFromAnotherCaOrPlainHttpIsRefused() throws IOException {
        TestCertificates other = TestCertificates.authority(Files.createDirectory(dir.resolve("other")), "other CA");
        VolumeServerSource untrusted = source(tls("enabled = true\nca = \"" + other.certFile() + "\"\n"));
        ReadFailure refused = assertThrows(ReadFailure.class, () -> await(untrusted.read(FID)));
        assertTrue(refused.getMessage().contains("master"), refused.getMessage());
        VolumeServerSource plain = source(null);
        assertThrows(ReadFailure.class, () -> await(plain.read(FID)));
        assertEquals(0, master.lookups());
        assertEquals(0, volumeServer.requests());
    }

    @Test
    void insecureSkipVerifyTrustsAnyServerCertificate() throws IOException {
        ca.client("sidecar");
        VolumeServerSource source = source(tls("enabled = true\ninsecure_skip_verify = true\n"
                + "cert = \"sidecar.crt\"\nkey = \"sidecar.key\"\n"));
        assertArrayEquals(DATA, bytes(await(source.read(FID))));
    }
}
