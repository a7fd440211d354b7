package org.seaweedfs.rdma.tls;

import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;

/**
 * HTTPS for the sidecar's clients of the master and the volume servers, from {@code [https.client]}: every request
 * goes over TLS (as SeaweedFS's clients do once {@code enabled} is true, whatever scheme a URL names), the server's
 * certificate checked against {@code trust} (null: the JVM's trust store) and its host name against the address
 * asked, a client certificate presented when {@code identity} is set. {@code trustAll} is
 * {@code insecure_skip_verify}: no check of the server at all.
 */
public record ClientTls(PemTrustOptions trust, PemKeyCertOptions identity, boolean trustAll) {

    /** Turns TLS on in {@code options}; returns them. */
    public <T extends HttpClientOptions> T applyTo(T options) {
        options.setSsl(true).setVerifyHost(!trustAll).setTrustAll(trustAll);
        if (trust != null && !trustAll) {
            options.setTrustOptions(trust);
        }
        if (identity != null) {
            options.setKeyCertOptions(identity);
        }
        return options;
    }
}
