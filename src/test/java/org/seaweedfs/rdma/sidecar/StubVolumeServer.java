package org.seaweedfs.rdma.sidecar;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.PubSecKeyOptions;
import io.vertx.ext.auth.authentication.TokenCredentials;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.seaweedfs.rdma.testing.TestCertificates;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NeedleRecord;
import org.seaweedfs.rdma.volume.NeedleMeta;
import org.seaweedfs.rdma.volume.Volume;
import org.seaweedfs.rdma.volume.VolumeDirectory;
import org.seaweedfs.rdma.volume.VolumeFiles;

/**
 * STAND-IN for a SeaweedFS volume server (which cannot run here): serves real volume files through the volume
 * package with the volume server's documented read semantics for {@code GET|HEAD /<vid>,<fid>} and
 * {@code /<vid>/<fid>}: ETag = CRC-32C of the stored data, Content-Type (stored mime), Content-Disposition
 * with the name, Last-Modified, gzip as stored when accepted (else decompressed), empty 404 for missing,
 * deleted or wrong-cookie needles, 200 empty for a Size-0 (empty) needle, the stored pairs as headers, 401 without
 * a valid read token when {@link #requireReadToken} was called, 400 for malformed ids, and one {@code Range} over the
 * bytes it would send
 * (206 with Content-Range; 416 without a length when it starts at or past the end, as SeaweedFS answers). Tests can
 * make it lie about the ETag, fail with a status, ignore ranges, or count requests, ranges and body bytes.
 */
public final class StubVolumeServer {

    private static final Pattern RANGE = Pattern.compile("bytes=(\\d{0,18})-(\\d{0,18})");
    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);

    private final Vertx vertx;
    private final Map<Long, Volume> volumes = new HashMap<>();
    private final AtomicInteger requests = new AtomicInteger();
    private final List<String> ranges = new CopyOnWriteArrayList<>();
    private final AtomicLong bodyBytes = new AtomicLong();
    private volatile boolean ignoreRanges;
    private volatile boolean corruptEtag;
    private volatile int failWith;
    private volatile JWTAuth readAuth;
    private HttpServer server;
    private HttpServerOptions options = new HttpServerOptions();

    public StubVolumeServer(Vertx vertx) {
        this.vertx = vertx;
    }

    /** Serve HTTPS with {@code cert} (call before start); see {@link TestCertificates.Issued#serverOptions}. */
    public StubVolumeServer https(TestCertificates.Issued cert, Path clientCa) {
        options = cert.serverOptions(clientCa);
        return this;
    }

    /** Opens every volume in {@code dir} and listens on an ephemeral port. */
    public Future<StubVolumeServer> start(Path dir) {
        return start(dir, "127.0.0.1", 0);
    }

    /** As {@link #start(Path)}, listening on {@code host:port} (0: any port). */
    public Future<StubVolumeServer> start(Path dir, String host, int port) {
        try {
            for (VolumeFiles files : VolumeDirectory.scan(dir).volumes()) {
                volumes.put(files.volumeId(), Volume.open(files, IndexFormat.OFFSET4));
            }
        } catch (IOException e) {
            return Future.failedFuture(e);
        }
        server = vertx.createHttpServer(options).requestHandler(this::handle);
        return server.listen(port, host).map(s -> this);
    }

    public int port() {
        return server.actualPort();
    }

    /** {@code 127.0.0.1:<port>}, as the master lists volume servers. */
    public String url() {
        return "127.0.0.1:" + port();
    }

    /** Require a read token signed with {@code key} (HS256, {@code fid} claim), as a JWT-secured volume server does. */
    public void requireReadToken(String key) {
        readAuth = JWTAuth.create(vertx, new JWTAuthOptions()
                .addPubSecKey(new PubSecKeyOptions().setAlgorithm("HS256").setBuffer(key)));
    }

    /** Answer with an ETag that does not match the body. */
    public void corruptEtag(boolean on) {
        corruptEtag = on;
    }

    /** Every request answers this status (0: serve normally). */
    public void failWith(int status) {
        failWith = status;
    }

    /** Answer every request in full, as a server without range support would (200). */
    public void ignoreRanges(boolean on) {
        ignoreRanges = on;
    }

    public int requests() {
        return requests.get();
    }

    /** The {@code Range} header of every request that had one, in order. */
    public List<String> ranges() {
        return List.copyOf(ranges);
    }

    /** Body bytes sent in all (200 and 206 answers). */
    public long bodyBytes() {
        return bodyBytes.get();
    }

    public Future<Void> stop() {
        volumes.values().forEach(v -> {
            try {
                v.close();
            } catch (IOException ignored) {
                // test teardown
            }
        });
        return server == null ? Future.succeededFuture() : server.close();
    }

    private void handle(HttpServerRequest request) {
        requests.incrementAndGet();
        if (request.getHeader("Range") != null) {
            ranges.add(request.getHeader("Range"));
        }
        if (failWith != 0) {
            request.response().setStatusCode(failWith).end();
            return;
        }
        FileId fid;
        try {
            fid = parse(request.path());
        } catch (IllegalArgumentException e) {
            request.response().setStatusCode(400).end();
            return;
        }
        if (readAuth != null) {
            request.pause();
            authorize(request, fid).onComplete(ar -> {
                request.resume();
                if (ar.failed()) {
                    request.response().setStatusCode(401).end("{\"error\":\"wrong jwt\"}");
                } else {
                    serve(request, fid);
                }
            });
            return;
        }
        serve(request, fid);
    }

    /**
     * As the volume server checks a read token: {@code jwt} parameter, else {@code Authorization: Bearer}; fid claim.
     */
    private Future<Void> authorize(HttpServerRequest request, FileId fid) {
        String token = request.getParam("jwt");
        String bearer = request.getHeader("Authorization");
        if ((token == null || token.isEmpty()) && bearer != null && bearer.regionMatches(true, 0, "Bearer ", 0, 7)) {
            token = bearer.substring(7);
        }
        if (token == null || token.isEmpty()) {
            return Future.failedFuture("missing jwt");
        }
        return readAuth.authenticate(new TokenCredentials(token)).compose(user ->
                fid.toString().equals(user.principal().getString("fid")) ? Future.<Void>succeededFuture()
                        : Future.failedFuture("jwt for another file"));
    }

    private void serve(HttpServerRequest request, FileId fid) {
        Volume volume = volumes.get(fid.volumeId());
        if (volume == null) {
            request.response().setStatusCode(404).end();
            return;
        }
        boolean gzipOk = String.valueOf(request.getHeader("Accept-Encoding")).contains("gzip");
        vertx.<Optional<NeedleRecord>>executeBlocking(() ->
                volume.read(fid, System.currentTimeMillis())).onComplete(ar -> {
            if (ar.failed()) {
                request.response().setStatusCode(500).end();
                return;
            }
            if (ar.result().isEmpty()) {
                int slot = volume.map().slotOf(fid.key());
                if (slot >= 0 && volume.map().sizeAt(slot) == 0) { // an empty file: 200, nothing read (volume_read.go)
                    request.response().putHeader("ETag", "\"00000000\"").end();
                } else {
                    request.response().setStatusCode(404).end();
                }
                return;
            }
            try {
                respond(request, ar.result().get(), gzipOk);
            } catch (IOException e) {
                request.response().setStatusCode(500).end();
            }
        });
    }

    private void respond(HttpServerRequest request, NeedleRecord needle, boolean gzipOk) throws IOException {
        byte[] stored = bytes(needle.data());
        NeedleMeta meta = needle.meta();
        int crc = needle.computeCrc();
        var response = request.response();
        response.putHeader("ETag", "\"" + String.format("%08x", corruptEtag ? crc ^ 1 : crc) + "\"");
        response.putHeader("Accept-Ranges", "bytes");
        if (!meta.mime().isEmpty()) {
            response.putHeader("Content-Type", meta.mime());
        }
        if (!meta.name().isEmpty()) {
            response.putHeader("Content-Disposition",
                    "inline; filename=\"" + meta.name().replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
        }
        if (meta.hasLastModified()) {
            response.putHeader("Last-Modified", HTTP_DATE.format(Instant.ofEpochSecond(meta.lastModified())));
        }
        if (!meta.pairs().isEmpty()) { // one header per stored pair, after ETag as upstream writes them
            new JsonObject(meta.pairs()).forEach(e -> response.putHeader(e.getKey(), String.valueOf(e.getValue())));
        }
        byte[] body = stored;
        if (meta.isCompressed()) {
            if (gzipOk) {
                response.putHeader("Content-Encoding", "gzip");
            } else {
                try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(stored))) {
                    body = in.readAllBytes();
                }
            }
        }
        if ("HEAD".equals(request.method().name())) {
            response.putHeader("Content-Length", Integer.toString(body.length)).end();
            return;
        }
        String range = request.getHeader("Range");
        if (range != null && !ignoreRanges) {
            long[] span = span(range, body.length);
            if (span == null) {
                response.setStatusCode(416).end("invalid range");
                return;
            }
            response.setStatusCode(206)
                    .putHeader("Content-Range", "bytes " + span[0] + "-" + span[1] + "/" + body.length);
            body = Arrays.copyOfRange(body, (int) span[0], (int) span[1] + 1);
        }
        bodyBytes.addAndGet(body.length);
        response.end(Buffer.buffer(body));
    }

    /**
     * One range {@code bytes=S-E}, {@code S-} or {@code -N} over {@code size} bytes as [first, last], clamped at the
     * end; null when unsatisfiable (starting at or past the end) or malformed, as Go's parseRange (SeaweedFS) decides.
     */
    private static long[] span(String range, long size) {
        Matcher m = RANGE.matcher(range.trim());
        if (!m.matches() || (m.group(1).isEmpty() && m.group(2).isEmpty())) {
            return null;
        }
        if (m.group(1).isEmpty()) {
            long suffix = Math.min(Long.parseLong(m.group(2)), size);
            return suffix == 0 ? null : new long[] {size - suffix, size - 1};
        }
        long first = Long.parseLong(m.group(1));
        long last = m.group(2).isEmpty() ? size - 1 : Math.min(Long.parseLong(m.group(2)), size - 1);
        return first >= size || last < first ? null : new long[] {first, last};
    }

    private static byte[] bytes(ByteBuffer data) {
        ByteBuffer d = data.duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }

    /** {@code /<vid>,<fid>[.ext]} or {@code /<vid>/<fid>[.ext]}. */
    private static FileId parse(String path) {
        String p = path.startsWith("/") ? path.substring(1) : path;
        int sep = p.indexOf(',');
        if (sep < 0) {
            sep = p.indexOf('/');
        }
        if (sep <= 0) {
            throw new IllegalArgumentException(path);
        }
        String rest = p.substring(sep + 1);
        int dot = rest.indexOf('.');
        if (dot >= 0) {
            rest = rest.substring(0, dot);
        }
        int slash = rest.indexOf('/');
        if (slash >= 0) {
            rest = rest.substring(0, slash);
        }
        return FileId.parsePath(FileId.parseVolumeId(p.substring(0, sep)), rest);
    }
}
