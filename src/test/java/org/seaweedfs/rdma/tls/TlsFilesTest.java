package org.seaweedfs.rdma.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.config.ConfigException;
import org.seaweedfs.rdma.testing.TestCertificates;

/**
 * SeaweedFS's security.toml as the sidecar reads it ({@code [https.client]}), and the start-up checks of every TLS
 * file: each problem names the configuration key and the file.
 */
@ExtendWith(VertxExtension.class)
class TlsFilesTest {

    private static final String KEY = "sidecar.securityToml";

    @TempDir
    Path dir;

    private Vertx vertx;
    private TestCertificates ca;

    @BeforeEach
    void setUp(Vertx vertx) {
        this.vertx = vertx;
        ca = TestCertificates.authority(dir, "cluster CA");
    }

    /** A security.toml shaped like SeaweedFS's scaffold: other tables, inline comments, dotted table names. */
    private Path toml(String httpsClient) throws IOException {
        return Files.writeString(dir.resolve("security.toml"), """
                # generated for the test, in the layout of weed scaffold -config=security
                [jwt.signing]
                key = ""
                expires_after_seconds = 10           # seconds

                [jwt.signing.read]
                key = "read-key"
                expires_after_seconds = 10           # seconds

                [grpc]
                ca = ""

                [https.client]
                """ + httpsClient + """

                [https.volume]
                cert = ""
                key = ""
                ca = ""
                """);
    }

    private ConfigException refused(String httpsClient) throws IOException {
        Path file = toml(httpsClient);
        return assertThrows(ConfigException.class, () -> TlsFiles.client(vertx, KEY, file.toString()));
    }

    @Test
    void httpsIsOffUnlessTheFileEnablesIt() throws IOException {
        assertNull(TlsFiles.client(vertx, KEY, null));
        assertNull(TlsFiles.client(vertx, KEY, toml("enabled = false  # the default").toString()));
        Path noTable = Files.writeString(dir.resolve("other.toml"), "[jwt.signing]\nkey = \"k\"\n");
        assertNull(TlsFiles.client(vertx, KEY, noTable.toString()));
    }

    @Test
    void theCaAndAClientCertificateAreReadWithPathsRelativeToTheFile() throws IOException {
        TestCertificates.Issued client = ca.client("sidecar-client");
        ClientTls tls = TlsFiles.client(vertx, KEY, toml("""
                enabled = true
                cert = "sidecar-client.crt"        # relative: beside security.toml
                key = "%s"
                ca = "cluster-CA.crt"
                insecure_skip_verify = false
                """.formatted(client.key())).toString());
        assertNotNull(tls.trust());
        assertNotNull(tls.identity());
        assertFalse(tls.trustAll());
    }

    @Test
    void withoutACaTheJvmsTrustStoreIsUsedAndInsecureSkipVerifyIsHonoured() throws IOException {
        ClientTls tls = TlsFiles.client(vertx, KEY, toml("enabled = \"true\"\ninsecure_skip_verify = true").toString());
        assertNull(tls.trust());
        assertNull(tls.identity());
        assertTrue(tls.trustAll());
    }

    @Test
    void aMissingCaFileNamesTheKeyAndTheFile() throws IOException {
        String message = refused("enabled = true\nca = \"/nowhere/ca.crt\"").problems().get(0);
        assertTrue(message.startsWith(KEY + ": " + dir.resolve("security.toml")), message);
        assertTrue(message.contains("[https.client] ca /nowhere/ca.crt: no such file"), message);
    }

    @Test
    void aCertificateWithoutItsKeyIsRefused() throws IOException {
        TestCertificates.Issued client = ca.client("c");
        String message = refused("enabled = true\ncert = \"" + client.cert() + "\"").problems().get(0);
        assertTrue(message.contains("[https.client] sets cert without key"), message);
    }

    @Test
    void aKeyThatIsNoKeyOrNotTheCertificatesIsRefused() throws IOException {
        TestCertificates.Issued client = ca.client("c");
        TestCertificates.Issued other = ca.client("other");
        Path garbage = Files.writeString(dir.resolve("garbage.key"), "-----BEGIN PRIVATE KEY-----\nnot base64\n");
        String notAKey = refused("enabled = true\ncert = \"c.crt\"\nkey = \"" + garbage + "\"").problems().get(0);
        assertTrue(notAKey.contains("[https.client] key " + garbage + ": not a PEM private key"), notAKey);
        String foreign = refused("enabled = true\ncert = \"c.crt\"\nkey = \"" + other.key() + "\"").problems().get(0);
        assertTrue(foreign.contains("[https.client] key " + other.key() + " is not the key of [https.client] cert "
                + client.cert()), foreign);
    }

    @Test
    void aCaFileWithoutCertificatesAndBadTomlAreRefused() throws IOException {
        Path empty = Files.writeString(dir.resolve("empty.crt"), "");
        String noCert = refused("enabled = true\nca = \"empty.crt\"").problems().get(0);
        assertTrue(noCert.contains("[https.client] ca " + empty + ": "), noCert);
        Path bad = Files.writeString(dir.resolve("bad.toml"), "[https.client\nenabled = true\n");
        String message = assertThrows(ConfigException.class, () -> TlsFiles.client(vertx, KEY, bad.toString()))
                .problems().get(0);
        assertTrue(message.startsWith(KEY + ": " + bad + ": not valid TOML"), message);
        String notBool = refused("enabled = 1").problems().get(0);
        assertTrue(notBool.contains("[https.client] enabled must be true or false"), notBool);
    }

    @Test
    void theListenersCertificateAndKeyAreCheckedAtStart() throws IOException {
        TestCertificates.Issued rsa = ca.issue("api", KeyPurposeId.id_kp_serverAuth, "RSA",
                TestCertificates.KeyFormat.TRADITIONAL);
        assertNull(TlsFiles.listener(vertx, "http.tlsCert", null, "http.tlsKey", null));
        assertNotNull(TlsFiles.listener(vertx, "http.tlsCert", rsa.cert().toString(), "http.tlsKey",
                rsa.key().toString()));
        ConfigException missing = assertThrows(ConfigException.class, () -> TlsFiles.listener(vertx, "http.tlsCert",
                dir.resolve("none.crt").toString(), "http.tlsKey", rsa.key().toString()));
        assertEquals("http.tlsCert " + dir.resolve("none.crt") + ": no such file", missing.problems().get(0));
        ConfigException keyAsCert = assertThrows(ConfigException.class, () -> TlsFiles.listener(vertx,
                "http.tlsCert", rsa.key().toString(), "http.tlsKey", rsa.key().toString()));
        assertTrue(keyAsCert.problems().get(0).startsWith("http.tlsCert " + rsa.key() + ": "),
                keyAsCert.problems().get(0));
        ConfigException half = assertThrows(ConfigException.class, () -> TlsFiles.listener(vertx, "http.tlsCert",
                rsa.cert().toString(), "http.tlsKey", null));
        assertTrue(half.problems().get(0).startsWith("http.tlsKey: unset"), half.problems().get(0));
    }
}
