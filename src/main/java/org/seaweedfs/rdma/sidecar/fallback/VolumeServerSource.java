package org.seaweedfs.rdma.sidecar.fallback;

import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPath;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.vertx.ext.web.client.HttpRequest;
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
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * <p>A slice ({@link #readSlice}) is asked for as a {@code Range} (without {@code Accept-Encoding: gzip}, so the
 * volume server applies it to the decompressed bytes, which the offsets count), so only the slice crosses the
 * network. Its bytes cannot be checked here (the CRC covers the whole stored needle), but they need not be: the
 * volume server reads the whole needle and checks its CRC-32C before it answers a range, and answers an error, not
 * bytes, on a mismatch; a 206 is as verified as the server's own reads. The 206's {@code Content-Range} must be
 * the range asked for (clamped at the end), else the answer is refused and the next replica tried. A server that
 * ignores the range (200) sends the whole needle, which is cut here. A 416 says the slice starts at or past the
 * end; as SeaweedFS's 416 carries no length, a one-byte range then tells an empty slice at the end from one
 * past it.
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

    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME;
    private static final Pattern CONTENT_RANGE = Pattern.compile("bytes (\\d+)-(\\d+)/(\\d+)");

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
        return fromReplicas(fid, volumeServerHint, server -> fetch(server, fid));
    }

    /** A Range request for the slice; the whole needle (offset 0, to the end) is read as stored and verified here. */
    @Override
    public Future<NeedleContent> readSlice(FileId fid, String volumeServerHint, long offset, long length,
                                           long maxPlainBytes) {
        if (offset == 0 && length < 0) {
            return NeedleSource.super.readSlice(fid, volumeServerHint, offset, length, maxPlainBytes);
        }
        return fromReplicas(fid, volumeServerHint, server -> fetchSlice(server, fid, offset, length, maxPlainBytes));
    }

    private Future<NeedleContent> fromReplicas(FileId fid, String volumeServerHint,
                                               Function<String, Future<NeedleContent>> fetch) {
        String hint;
        try {
            hint = volumeServerHint == null || volumeServerHint.isBlank() ? null : VolumeLocation.normalize(volumeServerHint);
        } catch (IllegalArgumentException e) {
            return Future.failedFuture(new ReadFailure(ReadFailure.Kind.BAD_REQUEST, e.getMessage()));
        }
        return servers(fid.volumeId(), hint).compose(servers -> tryServers(fid, servers, 0, null, fetch));
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

    private Future<NeedleContent> tryServers(FileId fid, List<String> servers, int index, ReadFailure worst,
                                             Function<String, Future<NeedleContent>> fetch) {
        if (index == servers.size()) {
            if (master != null && worst.retriable()) {
                master.invalidate(fid.volumeId());
            }
            return Future.failedFuture(worst);
        }
        String server = servers.get(index);
        return fetch.apply(server).recover(e -> {
            ReadFailure failure = e instanceof ReadFailure rf ? rf : ReadFailure.unavailable(server + ": " + e.getMessage(), e);
            if (failure.kind() == ReadFailure.Kind.BAD_REQUEST || failure.kind() == ReadFailure.Kind.TOO_LARGE
                    || failure.kind() == ReadFailure.Kind.RANGE_NOT_SATISFIABLE) {
                return Future.failedFuture(failure);
            }
            if (index + 1 < servers.size()) {
                LOG.debug("Volume server " + server + " could not serve " + fid + " (" + failure.getMessage() + "), trying the next replica");
            }
            return tryServers(fid, servers, index + 1, moreTelling(worst, failure), fetch);
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
        return get(server, fid, null).map(response -> content(server, fid, response));
    }

    /** {@code GET /<fid>}: with {@code range}, that Range; without, the stored bytes (gzip accepted). */
    private Future<HttpResponse<Buffer>> get(String server, FileId fid, String range) {
        HostPort address;
        try {
            address = HostPort.parse(server);
        } catch (IllegalArgumentException e) {
            return Future.failedFuture(new ReadFailure(ReadFailure.Kind.BAD_REQUEST, "volume server " + e.getMessage()));
        }
        HttpRequest<Buffer> request = client.get(address.port(), address.host(), "/" + fid).timeout(timeoutMillis);
        if (range == null) {
            request.putHeader("Accept-Encoding", "gzip");
        } else {
            request.putHeader("Range", range);
        }
        return request
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
                    return Future.succeededFuture(ar.result());
                });
    }

    /** The failure an answer other than the content means. */
    private ReadFailure failure(String server, FileId fid, int status) {
        return switch (status) {
            case 404 -> ReadFailure.notFound("volume server " + server + " has no " + fid);
            case 400 -> new ReadFailure(ReadFailure.Kind.BAD_REQUEST, "volume server " + server + " rejected " + fid);
            case 413 -> tooLarge(server, fid, "more than it serves");
            case 416 -> new ReadFailure(ReadFailure.Kind.RANGE_NOT_SATISFIABLE,
                    "volume server " + server + " has no bytes of " + fid + " in the range asked");
            default -> ReadFailure.unavailable("volume server " + server + " answered " + status + " for " + fid, null);
        };
    }

    private NeedleContent content(String server, FileId fid, HttpResponse<Buffer> response) {
        if (response.statusCode() != 200) {
            throw failure(server, fid, response.statusCode());
        }
        Buffer body = response.body() == null ? Buffer.buffer() : response.body();
        if (body.length() > maxNeedleBytes) {
            throw tooLarge(server, fid, Integer.toString(body.length()));
        }
        MultiMap headers = response.headers();
        int crc = NeedleChecksum.of(body.getBytes());
        verify(server, fid, headers.get("ETag"), crc, body.length());
        return new HttpNeedleContent(stat(fid, body.length(), crc, headers), body);
    }

    private static NeedleStat stat(FileId fid, long size, int crc, MultiMap headers) {
        return new NeedleStat(fid, size, crc,
                filename(headers.get("Content-Disposition")),
                headers.get("Content-Type"),
                lastModified(headers.get("Last-Modified")),
                null,
                "gzip".equalsIgnoreCase(headers.get("Content-Encoding")),
                false,
                ReadPath.HTTP.wire);
    }

    /** {@code Range: bytes=offset-last} (open-ended for the rest; one byte, then none kept, for a zero length). */
    private Future<NeedleContent> fetchSlice(String server, FileId fid, long offset, long length, long maxPlainBytes) {
        long last = length < 0 || length > Long.MAX_VALUE - offset ? -1 : offset + Math.max(length, 1) - 1;
        String range = "bytes=" + offset + "-" + (last < 0 ? "" : Long.toString(last));
        return get(server, fid, range).compose(response -> response.statusCode() == 416 && offset > 0
                ? atOrPastTheEnd(server, fid, offset, maxPlainBytes)
                : Future.succeededFuture(slice(server, fid, response, range, offset, length, last, maxPlainBytes)));
    }

    private NeedleContent slice(String server, FileId fid, HttpResponse<Buffer> response, String range, long offset,
                                long length, long last, long maxPlainBytes) {
        int status = response.statusCode();
        if (status != 200 && status != 206) {
            throw failure(server, fid, status);
        }
        MultiMap headers = response.headers();
        String encoding = headers.get("Content-Encoding");
        if (encoding != null && !"identity".equalsIgnoreCase(encoding.trim())) {
            throw ReadFailure.unavailable("volume server " + server + " sent " + fid + " as " + encoding
                    + ", not the plain bytes a range counts", null);
        }
        Buffer body = response.body() == null ? Buffer.buffer() : response.body();
        long size;
        Buffer bytes;
        if (status == 206) {
            size = checkedContentRange(server, fid, range, headers.get("Content-Range"), offset, last, body.length());
            bytes = body;
        } else { // the server ignored the range and sent the whole needle: cut it here
            size = body.length();
            if (offset > size) {
                throw ReadFailure.pastTheEnd(offset, size);
            }
            bytes = body.slice((int) offset, body.length());
        }
        if (size > maxPlainBytes) {
            throw tooLarge(server, fid, Long.toString(size));
        }
        int count = length < 0 ? bytes.length() : (int) Math.min(length, bytes.length());
        int crc = etagCrc(server, fid, headers.get("ETag"));
        return new HttpNeedleContent(stat(fid, size, crc, headers), bytes.slice(0, count));
    }

    /** The needle's length, after checking that {@code Content-Range} is the range asked for and matches the body. */
    private static long checkedContentRange(String server, FileId fid, String range, String contentRange, long offset,
                                            long last, int bodyLength) {
        Matcher m = contentRange == null ? null : CONTENT_RANGE.matcher(contentRange.trim());
        if (m != null && m.matches()) {
            try {
                long start = Long.parseLong(m.group(1));
                long end = Long.parseLong(m.group(2));
                long size = Long.parseLong(m.group(3));
                if (start == offset && end < size && end == (last < 0 ? size - 1 : Math.min(last, size - 1))
                        && end - start + 1 == bodyLength) {
                    return size;
                }
            } catch (NumberFormatException e) {
                // too long for a long: refused below
            }
        }
        throw ReadFailure.unavailable("volume server " + server + " answered " + range + " of " + fid
                + " with Content-Range " + contentRange + " and " + bodyLength + " bytes", null);
    }

    /**
     * After a 416 at {@code offset > 0}: one byte from the start gives the length (SeaweedFS's 416 carries none),
     * so a slice starting exactly at the end is empty, as a file read is, and one beyond it is 416.
     */
    private Future<NeedleContent> atOrPastTheEnd(String server, FileId fid, long offset, long maxPlainBytes) {
        return fetchSlice(server, fid, 0, 1, maxPlainBytes).transform(ar -> {
            if (ar.failed()) {
                return Future.failedFuture(ar.cause() instanceof ReadFailure f
                        && f.kind() == ReadFailure.Kind.RANGE_NOT_SATISFIABLE ? ReadFailure.pastTheEnd(offset, 0) : ar.cause());
            }
            NeedleStat stat = ar.result().stat();
            if (offset == stat.size()) {
                return Future.succeededFuture(new HttpNeedleContent(stat, Buffer.buffer()));
            }
            return Future.failedFuture(offset > stat.size() ? ReadFailure.pastTheEnd(offset, stat.size())
                    : ReadFailure.unavailable("volume server " + server + " refused a range of " + fid + " from "
                            + offset + " but has " + stat.size() + " bytes", null));
        });
    }

    private ReadFailure tooLarge(String server, FileId fid, String bytes) {
        return new ReadFailure(ReadFailure.Kind.TOO_LARGE, "volume server " + server + " has " + bytes + " bytes for "
                + fid + ", above sidecar.maxNeedleBytes " + maxNeedleBytes);
    }

    /** The ETag is the CRC-32C of the stored data; legacy volume servers may send its transformed form. */
    private static void verify(String server, FileId fid, String etag, int crc, long size) {
        int expected = etagCrc(server, fid, etag);
        if (size == 0 ? expected != 0 && expected != crc : expected != crc && expected != NeedleChecksum.legacyForm(crc)) {
            throw ReadFailure.corrupt(String.format(Locale.ROOT,
                    "volume server %s sent %s with ETag %s but the body's CRC-32C is %08x", server, fid, etag, crc));
        }
    }

    private static int etagCrc(String server, FileId fid, String etag) {
        if (etag == null) {
            throw ReadFailure.corrupt("volume server " + server + " sent " + fid + " without an ETag to verify");
        }
        String hex = etag.trim();
        if (hex.startsWith("W/")) {
            hex = hex.substring(2);
        }
        hex = hex.replace("\"", "");
        try {
            if (hex.isEmpty() || hex.length() > 8) {
                throw new NumberFormatException(hex);
            }
            return (int) Long.parseLong(hex, 16);
        } catch (NumberFormatException e) {
            throw ReadFailure.corrupt("volume server " + server + " sent " + fid + " with ETag " + etag + ", not a CRC");
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
