package org.seaweedfs.rdma.sidecar;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.logging.Logger;
import io.vertx.core.internal.logging.LoggerFactory;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.NeedleChecksum;

/**
 * The HTTP fallback: reads a needle from a SeaweedFS volume server ({@code GET http://<server>/<fid>} with
 * {@code Accept-Encoding: gzip}, so a compressed needle arrives as stored). The body's CRC-32C is checked
 * against the {@code ETag} (raw or the legacy transformed form), so corrupt bytes are never served. The
 * servers tried are the client's {@code volume_server} hint first, then the master's replicas in order: a
 * replica that fails (down, 5xx, corrupt, not found) makes the next one be tried.
 *
 * <p>A hint makes this process connect where an HTTP client says, so it is only followed to a server in
 * {@code sidecar.volumeServers} or among the locations the master lists for that volume. With neither a master nor
 * that list configured every hint is followed (the {@code weed mount} default; conf/config.yaml says to set the
 * list in production). A refused hint is ignored, logged at debug and counted ({@link #refusedHints()}); the read
 * goes on as if none had been given.
 *
 * <p>Not carried over HTTP: the needle's pairs (the volume server sends each as an ordinary response header, which
 * cannot be told reliably from its own and proxies' headers, so none are guessed) and the chunk-manifest flag (the
 * volume server resolves manifests itself).
 *
 * <p>Bodies are bounded by {@code sidecar.maxNeedleBytes}: an announced Content-Length above it, a 413 from the
 * server, or a body that grows past it fails TOO_LARGE (not retried on other replicas) without buffering more.
 */
public final class VolumeServerSource implements NeedleSource {

    private static final Logger LOG = LoggerFactory.getLogger(VolumeServerSource.class);

    public static final String SOURCE = "http";
    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME;

    private final WebClient client;
    private final MasterClient master;
    private final long maxNeedleBytes;
    private final long timeoutMillis;
    /** sidecar.volumeServers, as {@link #serverKey} keys. */
    private final Set<String> allowedHints;
    private final AtomicLong refusedHints = new AtomicLong();

    /**
     * @param client         a pooled client, see {@link #newClient(Vertx, int)}
     * @param master         where replicas are looked up; null when only hints are used
     * @param maxNeedleBytes larger bodies are refused ({@code sidecar.maxNeedleBytes})
     * @param timeout        one request to one server ({@code sidecar.readTimeout})
     */
    public VolumeServerSource(WebClient client, MasterClient master, long maxNeedleBytes, Duration timeout) {
        this(client, master, List.of(), maxNeedleBytes, timeout);
    }

    /** @param volumeServers servers a client's hint may name besides the master's locations ({@code sidecar.volumeServers}) */
    public VolumeServerSource(WebClient client, MasterClient master, List<HostPort> volumeServers, long maxNeedleBytes,
                              Duration timeout) {
        this.client = client;
        this.master = master;
        this.allowedHints = volumeServers.stream().map(h -> serverKey(h.toString())).collect(Collectors.toUnmodifiableSet());
        this.maxNeedleBytes = maxNeedleBytes;
        this.timeoutMillis = Math.max(1, timeout.toMillis());
    }

    /** Hints refused because they named a server neither configured nor listed by the master. */
    public long refusedHints() {
        return refusedHints.get();
    }

    /** A keep-alive client pool that leaves bodies compressed (the checksum is over the stored bytes). */
    public static WebClient newClient(Vertx vertx, int maxPoolSize) {
        return WebClient.create(vertx, new WebClientOptions()
                .setDecompressionSupported(false)
                .setKeepAlive(true)
                .setUserAgent("seaweedfs-rdma-sidecar")
                .setFollowRedirects(false), new io.vertx.core.http.PoolOptions().setHttp1MaxSize(maxPoolSize));
    }

    @Override
    public Future<NeedleStat> stat(FileId fid) {
        return read(fid).map(content -> {
            NeedleStat stat = content.stat();
            content.release();
            return stat;
        });
    }

    @Override
    public Future<NeedleContent> read(FileId fid) {
        return read(fid, null);
    }

    @Override
    public Future<NeedleContent> read(FileId fid, String volumeServerHint) {
        String hint;
        try {
            hint = volumeServerHint == null || volumeServerHint.isBlank() ? null : VolumeLocation.normalize(volumeServerHint);
        } catch (IllegalArgumentException e) {
            return Future.failedFuture(new ReadFailure(ReadFailure.Kind.BAD_REQUEST, e.getMessage()));
        }
        return servers(fid.volumeId(), hint).compose(servers -> tryServers(fid, servers, 0, null));
    }

    /** The hint (when it may be followed), then the master's replicas (deduplicated, in order). */
    private Future<List<String>> servers(long volumeId, String givenHint) {
        if (master == null) {
            String hint = followed(givenHint, volumeId, List.of());
            return hint != null ? Future.succeededFuture(List.of(hint)) : Future.failedFuture(ReadFailure.unavailable(
                    "no volume server known for volume " + volumeId + " (set sidecar.master or pass volume_server)", null));
        }
        return master.lookup(volumeId).transform(ar -> {
            List<VolumeLocation> listed = ar.succeeded() ? ar.result().locations() : List.of();
            String hint = followed(givenHint, volumeId, listed);
            Set<String> servers = new LinkedHashSet<>();
            if (hint != null) {
                servers.add(hint);
            }
            if (ar.succeeded()) {
                listed.forEach(l -> servers.add(l.url()));
            } else if (hint == null) {
                return Future.failedFuture(ar.cause());
            }
            if (servers.isEmpty()) {
                return Future.failedFuture(ReadFailure.unavailable("master lists no location for volume " + volumeId, null));
            }
            return Future.succeededFuture(List.copyOf(servers));
        });
    }

    /** The hint when it may be fetched from (see the class comment), else null. */
    private String followed(String hint, long volumeId, List<VolumeLocation> listed) {
        if (hint == null || (master == null && allowedHints.isEmpty())) {
            return hint;
        }
        String key = serverKey(hint);
        if (allowedHints.contains(key)
                || listed.stream().anyMatch(l -> key.equals(serverKey(l.url())) || key.equals(serverKey(l.publicUrl())))) {
            return hint;
        }
        refusedHints.incrementAndGet();
        LOG.debug("Ignored volume_server hint " + hint + " for volume " + volumeId
                + ": neither in sidecar.volumeServers nor listed by the master");
        return null;
    }

    /** host:port compared case-insensitively in the host ("[v6]:port" for IPv6); the text itself when unparsable. */
    private static String serverKey(String hostPort) {
        try {
            HostPort parsed = HostPort.parse(hostPort);
            return new HostPort(parsed.host().toLowerCase(Locale.ROOT), parsed.port()).toString();
        } catch (IllegalArgumentException e) {
            return hostPort;
        }
    }

    private Future<NeedleContent> tryServers(FileId fid, List<String> servers, int index, ReadFailure worst) {
        if (index == servers.size()) {
            if (master != null && worst.retriable()) {
                master.invalidate(fid.volumeId());
            }
            return Future.failedFuture(worst);
        }
        String server = servers.get(index);
        return fetch(server, fid).recover(e -> {
            ReadFailure failure = e instanceof ReadFailure rf ? rf : ReadFailure.unavailable(server + ": " + e.getMessage(), e);
            if (failure.kind() == ReadFailure.Kind.BAD_REQUEST || failure.kind() == ReadFailure.Kind.TOO_LARGE) {
                return Future.failedFuture(failure);
            }
            if (index + 1 < servers.size()) {
                LOG.debug("Volume server " + server + " could not serve " + fid + " (" + failure.getMessage() + "), trying the next replica");
            }
            return tryServers(fid, servers, index + 1, moreTelling(worst, failure));
        });
    }

    /** What to report when every server failed: corrupt data over not found over anything transient. */
    private static ReadFailure moreTelling(ReadFailure a, ReadFailure b) {
        if (a == null) {
            return b;
        }
        return rank(b) > rank(a) ? b : a;
    }

    private static int rank(ReadFailure f) {
        return switch (f.kind()) {
            case CORRUPT -> 3;
            case NOT_FOUND -> 2;
            default -> 1;
        };
    }

    private Future<NeedleContent> fetch(String server, FileId fid) {
        HostPort address;
        try {
            address = HostPort.parse(server);
        } catch (IllegalArgumentException e) {
            return Future.failedFuture(new ReadFailure(ReadFailure.Kind.BAD_REQUEST, "volume server " + e.getMessage()));
        }
        return client.get(address.port(), address.host(), "/" + fid)
                .putHeader("Accept-Encoding", "gzip")
                .timeout(timeoutMillis)
                .as(new BoundedBody(maxNeedleBytes, seen -> tooLarge(server, fid, seen + "+")))
                .send()
                .transform(ar -> {
                    if (ar.failed() && ar.cause() instanceof ReadFailure tooLarge) {
                        return Future.failedFuture(tooLarge); // the body went past sidecar.maxNeedleBytes
                    }
                    if (ar.failed()) {
                        String message = "volume server " + server + ": " + ar.cause().getMessage();
                        return Future.failedFuture(ar.cause().getClass().getSimpleName().contains("Timeout")
                                ? new ReadFailure(ReadFailure.Kind.TIMEOUT, message, ar.cause())
                                : ReadFailure.unavailable(message, ar.cause()));
                    }
                    try {
                        return Future.succeededFuture(content(server, fid, ar.result()));
                    } catch (ReadFailure f) {
                        return Future.failedFuture(f);
                    }
                });
    }

    private NeedleContent content(String server, FileId fid, HttpResponse<Buffer> response) {
        int status = response.statusCode();
        switch (status) {
            case 200 -> { }
            case 404 -> throw ReadFailure.notFound("volume server " + server + " has no " + fid);
            case 400 -> throw new ReadFailure(ReadFailure.Kind.BAD_REQUEST, "volume server " + server + " rejected " + fid);
            case 413 -> throw tooLarge(server, fid, "more than it serves");
            default -> throw ReadFailure.unavailable("volume server " + server + " answered " + status + " for " + fid, null);
        }
        Buffer body = response.body() == null ? Buffer.buffer() : response.body();
        if (body.length() > maxNeedleBytes) {
            throw tooLarge(server, fid, Integer.toString(body.length()));
        }
        MultiMap headers = response.headers();
        int crc = NeedleChecksum.of(body.getBytes());
        verify(server, fid, headers.get("ETag"), crc, body.length());
        NeedleStat stat = new NeedleStat(fid, body.length(), crc,
                filename(headers.get("Content-Disposition")),
                headers.get("Content-Type"),
                lastModified(headers.get("Last-Modified")),
                null,
                "gzip".equalsIgnoreCase(headers.get("Content-Encoding")),
                false,
                SOURCE);
        return new HttpNeedleContent(stat, body);
    }

    private ReadFailure tooLarge(String server, FileId fid, String bytes) {
        return new ReadFailure(ReadFailure.Kind.TOO_LARGE, "volume server " + server + " has " + bytes + " bytes for "
                + fid + ", above sidecar.maxNeedleBytes " + maxNeedleBytes);
    }

    /** The ETag is the CRC-32C of the stored data; legacy volume servers may send its transformed form. */
    private static void verify(String server, FileId fid, String etag, int crc, long size) {
        if (etag == null) {
            throw ReadFailure.corrupt("volume server " + server + " sent " + fid + " without an ETag to verify");
        }
        String hex = etag.trim();
        if (hex.startsWith("W/")) {
            hex = hex.substring(2);
        }
        hex = hex.replace("\"", "");
        int expected;
        try {
            if (hex.isEmpty() || hex.length() > 8) {
                throw new NumberFormatException(hex);
            }
            expected = (int) Long.parseLong(hex, 16);
        } catch (NumberFormatException e) {
            throw ReadFailure.corrupt("volume server " + server + " sent " + fid + " with ETag " + etag + ", not a CRC");
        }
        if (size == 0 ? expected != 0 && expected != crc : expected != crc && expected != NeedleChecksum.legacyForm(crc)) {
            throw ReadFailure.corrupt(String.format(Locale.ROOT,
                    "volume server %s sent %s with ETag %s but the body's CRC-32C is %08x", server, fid, etag, crc));
        }
    }

    static String filename(String disposition) {
        if (disposition == null) {
            return "";
        }
        for (String part : disposition.split(";")) {
            String p = part.trim();
            String lower = p.toLowerCase(Locale.ROOT);
            if (lower.startsWith("filename*=utf-8''")) {
                return URLDecoder.decode(p.substring("filename*=utf-8''".length()).replace("+", "%2B"), StandardCharsets.UTF_8);
            }
        }
        for (String part : disposition.split(";")) {
            String p = part.trim();
            if (p.toLowerCase(Locale.ROOT).startsWith("filename=")) {
                String v = p.substring("filename=".length());
                if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
                    v = v.substring(1, v.length() - 1).replace("\\\"", "\"").replace("\\\\", "\\");
                }
                return v;
            }
        }
        return "";
    }

    static long lastModified(String header) {
        if (header == null || header.isBlank()) {
            return 0;
        }
        try {
            return ZonedDateTime.parse(header.trim(), HTTP_DATE).toEpochSecond();
        } catch (DateTimeParseException e) {
            return 0;
        }
    }

    /** A body held on the heap: nothing pooled to return. */
    private record HttpNeedleContent(NeedleStat stat, Buffer body) implements NeedleContent {
        @Override
        public List<Buffer> chunks() {
            return body.length() == 0 ? List.of() : List.of(body);
        }

        @Override
        public void release() {
        }
    }
}
