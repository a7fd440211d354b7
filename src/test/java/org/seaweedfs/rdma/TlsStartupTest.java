package org.seaweedfs.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.config.ConfigException;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.testing.TestCertificates;

/** A TLS file the configuration names but cannot be used stops the start before anything listens. */
@ExtendWith(VertxExtension.class)
class TlsStartupTest {

    @TempDir
    Path dir;

    private List<String> problems(Vertx vertx, String yaml) {
        return assertThrows(ConfigException.class, () -> await(SeaweedRdma.deploy(vertx,
                ConfigLoader.parse(yaml, "test", Map.of()), null))).problems();
    }

    @Test
    void aMissingListenerKeyNamesTheKeyAndTheFile(Vertx vertx) {
        TestCertificates.Issued cert = TestCertificates.authority(dir, "ca").server("sidecar");
        Path missing = dir.resolve("gone.key");
        assertEquals(List.of("http.tlsKey " + missing + ": no such file"), problems(vertx,
                "http: {port: 0, tlsCert: '" + cert.cert() + "', tlsKey: '" + missing + "'}\n"));
    }

    @Test
    void anUnusableSecurityTomlNamesTheKeyAndTheFile(Vertx vertx) throws IOException {
        Path toml = Files.writeString(dir.resolve("security.toml"), "[https.client]\nenabled = true\nca = \"x.crt\"\n");
        assertEquals(List.of("sidecar.securityToml: " + toml + ": [https.client] ca " + dir.resolve("x.crt")
                + ": no such file"), problems(vertx, "http: {port: 0}\nsidecar: {securityToml: '" + toml + "'}\n"));
    }

    @Test
    void aCertificateWithoutKeyIsAConfigurationError() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(
                "http: {tlsCert: /etc/ssl/sidecar.crt}\n", "test", Map.of()));
        assertEquals(List.of("http.tlsKey: unset, but http.tlsCert is set: the HTTPS listener needs both the "
                + "certificate and its key"), e.problems());
    }
}
