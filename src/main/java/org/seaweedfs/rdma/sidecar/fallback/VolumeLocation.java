package org.seaweedfs.rdma.sidecar.fallback;

/**
 * One volume server holding a replica of a volume, as the master lists it.
 *
 * @param url       {@code host:port} the volume server serves on (used by this sidecar)
 * @param publicUrl {@code host:port} it advertises to clients (informational)
 */
public record VolumeLocation(String url, String publicUrl) {

    public VolumeLocation {
        url = normalize(url);
        publicUrl = publicUrl == null || publicUrl.isBlank() ? url : normalize(publicUrl);
    }

    /**
     * {@code host:port} from the forms clients and the master use: with or without {@code http://} or
     * {@code https://}, with or without a trailing slash. The scheme is dropped: as in SeaweedFS's own clients, the
     * configuration ({@code [https.client]} of {@code sidecar.securityToml}) decides whether servers are asked over
     * HTTPS, not the URL a client or the master names ({@code weed mount} always names {@code http://}).
     */
    public static String normalize(String server) {
        if (server == null || server.isBlank()) {
            throw new IllegalArgumentException("volume server address is empty");
        }
        String s = server.trim();
        if (s.regionMatches(true, 0, "http://", 0, 7)) {
            s = s.substring("http://".length());
        } else if (s.regionMatches(true, 0, "https://", 0, 8)) {
            s = s.substring("https://".length());
        }
        while (s.endsWith("/")) {
            s = s.substring(0, s.length() - 1);
        }
        if (s.isEmpty() || s.indexOf('/') >= 0 || s.indexOf('?') >= 0 || s.indexOf('#') >= 0 || s.indexOf('@') >= 0) {
            throw new IllegalArgumentException("volume server '" + server + "' is not host:port");
        }
        return s;
    }

    /** The host part (no port, no IPv6 brackets). */
    public String host() {
        int colon = url.lastIndexOf(':');
        String h = colon > 0 && url.indexOf(']') < colon ? url.substring(0, colon) : url;
        return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
    }
}
