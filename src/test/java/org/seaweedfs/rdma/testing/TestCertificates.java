package org.seaweedfs.rdma.testing;

import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.io.IOException;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.DERBitString;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * Certificates a test makes for itself: a CA, and server or client certificates it signs, written as PEM files the
 * way {@code openssl} writes them (what SeaweedFS's {@code security.toml} points at). Server certificates name
 * {@code 127.0.0.1} and {@code localhost}, so a client that checks host names accepts them on loopback.
 */
public final class TestCertificates {

    /** How a private key is written: PKCS#8 ({@code PRIVATE KEY}) or OpenSSL's traditional form. */
    public enum KeyFormat { PKCS8, TRADITIONAL }

    /** A certificate and its key, as files. */
    public record Issued(Path cert, Path key) {

        /**
         * A server presenting this certificate, as SeaweedFS serves with {@code [https.*] cert/key}; with a
         * {@code clientCa}, as with {@code [https.*] ca}: only clients showing a certificate it signed are served.
         */
        public HttpServerOptions serverOptions(Path clientCa) {
            HttpServerOptions options = new HttpServerOptions().setSsl(true)
                    .setKeyCertOptions(new PemKeyCertOptions().setCertPath(cert.toString()).setKeyPath(key.toString()));
            if (clientCa != null) {
                options.setClientAuth(ClientAuth.REQUIRED)
                        .setTrustOptions(new PemTrustOptions().addCertPath(clientCa.toString()));
            }
            return options;
        }
    }

    private static final AtomicLong SERIAL = new AtomicLong(System.nanoTime());

    private final X500Name name;
    private final KeyPair keys;
    private final Path certFile;
    private final Path dir;

    private TestCertificates(X500Name name, KeyPair keys, Path certFile, Path dir) {
        this.name = name;
        this.keys = keys;
        this.certFile = certFile;
        this.dir = dir;
    }

    /** A new self-signed CA whose certificate is written to {@code dir/<name>.crt}. */
    public static TestCertificates authority(Path dir, String name) {
        try {
            KeyPair keys = keyPair("EC");
            X500Name subject = new X500Name("CN=" + name);
            X509v3CertificateBuilder builder = builder(subject, subject, keys)
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            Path file = dir.resolve(name.replace(' ', '-') + ".crt");
            write(file, sign(builder, keys.getPrivate()));
            return new TestCertificates(subject, keys, file, dir);
        } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The CA's certificate file (a {@code ca} setting). */
    public Path certFile() {
        return certFile;
    }

    /** A server certificate for loopback (EC key, PKCS#8). */
    public Issued server(String name) {
        return issue(name, KeyPurposeId.id_kp_serverAuth, "EC", KeyFormat.PKCS8);
    }

    /** A client certificate (EC key in OpenSSL's {@code EC PRIVATE KEY} form, as {@code openssl ecparam} writes). */
    public Issued client(String name) {
        return issue(name, KeyPurposeId.id_kp_clientAuth, "EC", KeyFormat.TRADITIONAL);
    }

    /** A certificate for {@code purpose} with a key of {@code algorithm} (EC, RSA), written as {@code format}. */
    public Issued issue(String name, KeyPurposeId purpose, String algorithm, KeyFormat format) {
        try {
            KeyPair leaf = keyPair(algorithm);
            X509v3CertificateBuilder builder = builder(this.name, new X500Name("CN=" + name), leaf)
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose))
                    .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                            new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                            new GeneralName(GeneralName.dNSName, "localhost")}));
            Path cert = dir.resolve(name + ".crt");
            Path key = dir.resolve(name + ".key");
            write(cert, sign(builder, keys.getPrivate()));
            writeKey(key, leaf, format);
            return new Issued(cert, key);
        } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
        Instant now = Instant.now();
        return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIAL.incrementAndGet()),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))), subject,
                keys.getPublic());
    }

    private static KeyPair keyPair(String algorithm) throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance(algorithm);
        generator.initialize("RSA".equals(algorithm) ? 2048 : 256);
        return generator.generateKeyPair();
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey issuerKey)
            throws GeneralSecurityException, OperatorCreationException {
        String algorithm = "RSA".equals(issuerKey.getAlgorithm()) ? "SHA256withRSA" : "SHA256withECDSA";
        return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder(algorithm).build(issuerKey)));
    }

    private static void write(Path file, Object pem) throws IOException {
        try (Writer out = Files.newBufferedWriter(file); JcaPEMWriter writer = new JcaPEMWriter(out)) {
            writer.writeObject(pem);
        }
    }

    /** PKCS#8; or OpenSSL's form: PKCS#1 for RSA, SEC1 with the curve named and the public key for EC. */
    private static void writeKey(Path file, KeyPair pair, KeyFormat format) throws IOException {
        PrivateKey key = pair.getPrivate();
        if (format == KeyFormat.PKCS8) {
            write(file, new JcaPKCS8Generator(key, null));
        } else if (key instanceof ECPrivateKey ec) {
            ASN1Encodable curve = PrivateKeyInfo.getInstance(key.getEncoded()).getPrivateKeyAlgorithm().getParameters();
            DERBitString point = new DERBitString(
                    SubjectPublicKeyInfo.getInstance(pair.getPublic().getEncoded()).getPublicKeyData().getBytes());
            write(file, new PemObject("EC PRIVATE KEY", new org.bouncycastle.asn1.sec.ECPrivateKey(
                    ec.getParams().getOrder().bitLength(), ec.getS(), point, curve).getEncoded()));
        } else {
            write(file, key);
        }
    }
}
