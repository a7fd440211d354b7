package org.seaweedfs.rdma.tls;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.X509KeyManager;
import org.seaweedfs.rdma.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the TLS files the configuration names, once, at start-up (blocking: call off the event loop), so a missing
 * file, a file that is no PEM, a key without its certificate or a key that does not belong to the certificate stops
 * the start with the configuration key and the file named, instead of failing the first connection.
 */
public final class TlsFiles {

    private static final Logger LOG = LoggerFactory.getLogger(TlsFiles.class);
    /** Key types whose pairing with the certificate is checked (the JDK's key manager names). */
    private static final List<String> KEY_TYPES = List.of("RSA", "EC", "EdDSA");

    private TlsFiles() {
    }

    /**
     * The sidecar's HTTPS client settings from SeaweedFS's {@code security.toml}; null (plain HTTP) when
     * {@code file} is null or its {@code [https.client] enabled} is not true.
     *
     * @param key the configuration key naming the file, for messages
     * @throws ConfigException naming {@code key}, the file and the problem
     */
    public static ClientTls client(Vertx vertx, String key, String file) {
        if (file == null) {
            return null;
        }
        try {
            HttpsClientSection section = HttpsClientSection.read(Path.of(file));
            if (!section.enabled()) {
                LOG.info("{}: {} does not enable [https.client]: the master and volume servers are asked over HTTP",
                        key, file);
                return null;
            }
            if (section.insecureSkipVerify()) {
                LOG.warn("{}: {} sets [https.client] insecure_skip_verify: the certificates of the master and "
                        + "volume servers are not checked", key, file);
            }
            PemTrustOptions trust = section.ca() == null ? null
                    : new PemTrustOptions().addCertValue(certificates("[https.client] ca", section.ca()));
            PemKeyCertOptions identity = section.cert() == null ? null
                    : identity(vertx, "[https.client] cert", section.cert(), "[https.client] key", section.key());
            return new ClientTls(trust, identity, section.insecureSkipVerify());
        } catch (IllegalArgumentException e) {
            throw new ConfigException(List.of(key + ": " + file + ": " + e.getMessage()));
        }
    }

    /**
     * The certificate and key an HTTPS listener presents; null when both are null.
     *
     * @throws ConfigException naming the key and the file at fault
     */
    public static PemKeyCertOptions listener(Vertx vertx, String certKey, String cert, String keyKey, String key) {
        if (cert == null && key == null) {
            return null;
        }
        if (cert == null || key == null) {
            throw new ConfigException(List.of((cert == null ? certKey : keyKey) + ": unset, but "
                    + (cert == null ? keyKey : certKey) + " is set: TLS needs both the certificate and its key"));
        }
        try {
            return identity(vertx, certKey, Path.of(cert), keyKey, Path.of(key));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(List.of(e.getMessage()));
        }
    }

    /** The certificate chain and key, checked to parse and to belong together. */
    private static PemKeyCertOptions identity(Vertx vertx, String certWhat, Path cert, String keyWhat, Path key) {
        Buffer chain = certificates(certWhat, cert);
        Buffer secret = read(keyWhat, key);
        PemKeyCertOptions options = new PemKeyCertOptions().addCertValue(chain).addKeyValue(secret);
        X509KeyManager keys;
        try {
            keys = (X509KeyManager) options.getKeyManagerFactory(vertx).getKeyManagers()[0];
        } catch (Exception e) {
            throw new IllegalArgumentException(keyWhat + " " + key + ": not a PEM private key (" + e.getMessage()
                    + ")");
        }
        try {
            for (String type : KEY_TYPES) {
                String[] aliases = keys.getServerAliases(type, null);
                for (String alias : aliases == null ? new String[0] : aliases) {
                    if (!belongTogether(keys.getPrivateKey(alias), keys.getCertificateChain(alias)[0].getPublicKey())) {
                        throw new IllegalArgumentException(keyWhat + " " + key + " is not the key of " + certWhat
                                + " " + cert);
                    }
                }
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(keyWhat + " " + key + ": " + e.getMessage());
        }
        return options;
    }

    /** Signs a few bytes with the private key and checks the signature with the certificate's public key. */
    private static boolean belongTogether(PrivateKey secret, PublicKey published) throws GeneralSecurityException {
        String algorithm = switch (secret.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            default -> null;
        };
        if (algorithm == null || !secret.getAlgorithm().equals(published.getAlgorithm())) {
            return algorithm == null; // an algorithm not checked here is left to the TLS handshake
        }
        byte[] probe = "seaweedfs-rdma key check".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        Signature signer = Signature.getInstance(algorithm);
        signer.initSign(secret);
        signer.update(probe);
        byte[] signature = signer.sign();
        Signature verifier = Signature.getInstance(algorithm);
        verifier.initVerify(published);
        verifier.update(probe);
        return verifier.verify(signature);
    }

    /** A PEM file holding at least one X.509 certificate. */
    private static Buffer certificates(String what, Path file) {
        Buffer pem = read(what, file);
        Collection<? extends Certificate> certs;
        try {
            certs = CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(
                    pem.getBytes()));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(what + " " + file + ": not a PEM certificate (" + e.getMessage() + ")");
        }
        if (certs.isEmpty() || !(certs.iterator().next() instanceof X509Certificate)) {
            throw new IllegalArgumentException(what + " " + file + ": holds no PEM certificate");
        }
        return pem;
    }

    private static Buffer read(String what, Path file) {
        try {
            return Buffer.buffer(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new IllegalArgumentException(what + " " + file + ": " + why(e));
        }
    }

    /** An I/O failure in an operator's words. */
    static String why(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "cannot be read (permission denied)";
        }
        return "cannot be read (" + e.getMessage() + ")";
    }
}
