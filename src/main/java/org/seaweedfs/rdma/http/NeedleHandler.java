package org.seaweedfs.rdma.http;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.ByteChunks;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleContentType;
import org.seaweedfs.rdma.sidecar.NeedleInflater;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.ReadFailure;

/**
 * GET and HEAD of a needle URL with the volume server's semantics (headers, conditional requests,
 * ranges, gzip). HEAD answers exactly what GET would, without the body.
 */
final class NeedleHandler implements Handler<RoutingContext> {

    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);

    private final Vertx vertx;
    private final HttpApiContext api;
    private final JwtReadAuth auth;

    NeedleHandler(Vertx vertx, HttpApiContext api, JwtReadAuth auth) {
        this.vertx = vertx;
        this.api = api;
        this.auth = auth;
    }

    @Override
    public void handle(RoutingContext ctx) {
        serve(ctx.request());
    }

    /**
     * Whether a request is surely a needle read: GET or HEAD of a path starting with a volume id. Those skip the
     * router (its per-request routing context is a measurable share of a small read); the router keeps every
     * other path, and unusual needle-like ones still reach this handler through its catch-all route.
     */
    static boolean isNeedleRead(HttpServerRequest request) {
        String path = request.path();
        HttpMethod method = request.method();
        return (method == HttpMethod.GET || method == HttpMethod.HEAD)
                && path != null && path.length() > 1 && path.charAt(0) == '/' && Character.isDigit(path.charAt(1));
    }

    /** Serves one needle request (from the router or directly); an unexpected error answers 500. */
    void serve(HttpServerRequest request) {
        try {
            read(request);
        } catch (RuntimeException e) {
            HttpApiVerticle.internalError(request, e);
        }
    }

    private void read(HttpServerRequest request) {
        HttpServerResponse response = request.response();
        NeedlePath path;
        try {
            path = NeedlePath.parse(request.path());
        } catch (IllegalArgumentException e) {
            api.meters().recordRead("none", "bad_request", 0);
            HttpErrors.send(response, 400, e.getMessage());
            return;
        }
        auth.check(request, path.authFid()).onComplete(ar -> {
            if (ar.failed()) {
                api.meters().recordRead("none", "unauthorized", 0);
                HttpErrors.send(response, 401, ar.cause().getMessage());
                return;
            }
            ReadScope scope = ReadScope.admit(api, response);
            if (scope != null) {
                api.source().read(path.fid()).onComplete(read -> {
                    if (read.succeeded()) {
                        answer(request, path, read.result(), scope);
                    } else {
                        fail(response, read.cause(), scope);
                    }
                });
            }
        });
    }

    private void fail(HttpServerResponse response, Throwable cause, ReadScope scope) {
        int code = ReadFailure.codeOf(cause);
        scope.finish("none", ReadMeters.resultOf(code), 0);
        if (code == 404) {
            response.setStatusCode(404).end(); // the volume server's empty 404
        } else {
            HttpErrors.send(response, code, cause.getMessage());
        }
    }

    private void answer(HttpServerRequest request, NeedlePath path, NeedleContent content, ReadScope scope) {
        NeedleStat stat = content.stat();
        HttpServerResponse response = request.response();
        if (stat.chunkManifest() && !"false".equals(request.getParam("cm"))) {
            content.release();
            scope.finish(stat.source(), "error", 0);
            HttpErrors.send(response, 501, "needle " + stat.fid() + " is a chunk manifest; read it with cm=false");
            return;
        }
        writeHeaders(request, response, path, stat);
        if (notModified(request, stat)) {
            content.release();
            scope.finish(stat.source(), "not_modified", 0);
            response.setStatusCode(304).end();
            return;
        }
        boolean gzip = stat.compressed() && acceptsGzip(request.getHeader("Accept-Encoding"));
        Future<ByteChunks> body;
        if (stat.compressed() && !gzip) {
            body = NeedleInflater.inflate(vertx, ByteChunks.of(content.chunks()), api.maxNeedleBytes()).map(ByteChunks::of);
            content.release(); // inflate copied the stored bytes
        } else {
            if (gzip) {
                response.putHeader("Content-Encoding", "gzip");
            }
            body = Future.succeededFuture(ByteChunks.of(content.chunks()));
        }
        body.onComplete(ar -> {
            if (ar.failed()) {
                content.release();
                fail(response, ar.cause(), scope);
                return;
            }
            sendBody(request, response, stat, ar.result()).onComplete(sent -> {
                content.release();
                scope.finish(stat.source(), sent.succeeded() ? "ok" : "aborted", sent.succeeded() ? sent.result() : 0);
            });
        });
    }

    /** Resolves ranges and writes the body; the future carries the body bytes sent. */
    private Future<Long> sendBody(HttpServerRequest request, HttpServerResponse response, NeedleStat stat, ByteChunks body) {
        long size = body.length();
        ByteRanges ranges = ByteRanges.parse(request.getHeader("Range"), size);
        List<Buffer> pieces;
        long length;
        switch (ranges.kind()) {
            case UNSATISFIABLE -> {
                response.putHeader("Content-Range", "bytes */" + size);
                return HttpErrors.send(response, 416, "range '" + request.getHeader("Range")
                        + "' is not satisfiable for " + size + " bytes").map(0L);
            }
            case WHOLE -> {
                response.setStatusCode(200);
                pieces = body.chunks();
                length = size;
            }
            default -> {
                response.setStatusCode(206);
                if (ranges.ranges().size() == 1) {
                    ByteRanges.Range r = ranges.ranges().get(0);
                    response.putHeader("Content-Range", r.contentRange(size));
                    pieces = body.slice(r.start(), r.length()).chunks();
                    length = r.length();
                } else {
                    pieces = multipart(response, ranges.ranges(), body, response.headers().get("Content-Type"));
                    length = pieces.stream().mapToLong(Buffer::length).sum();
                }
            }
        }
        response.putHeader("Content-Length", Long.toString(length));
        if (request.method() == HttpMethod.HEAD) {
            return response.end().map(0L);
        }
        return BodyStreamer.stream(response, pieces).map(length);
    }

    /** multipart/byteranges pieces, laid out as Go's mime/multipart writes them. */
    private static List<Buffer> multipart(HttpServerResponse response, List<ByteRanges.Range> ranges, ByteChunks body,
                                          String contentType) {
        String boundary = Long.toHexString(ThreadLocalRandom.current().nextLong())
                + Long.toHexString(ThreadLocalRandom.current().nextLong());
        response.putHeader("Content-Type", "multipart/byteranges; boundary=" + boundary);
        List<Buffer> pieces = new ArrayList<>();
        String prefix = "--";
        for (ByteRanges.Range r : ranges) {
            StringBuilder head = new StringBuilder(prefix).append(boundary).append("\r\n")
                    .append("Content-Range: ").append(r.contentRange(body.length())).append("\r\n");
            if (contentType != null) {
                head.append("Content-Type: ").append(contentType).append("\r\n");
            }
            head.append("\r\n");
            pieces.add(Buffer.buffer(head.toString()));
            pieces.addAll(body.slice(r.start(), r.length()).chunks());
            prefix = "\r\n--";
        }
        pieces.add(Buffer.buffer("\r\n--" + boundary + "--\r\n"));
        return pieces;
    }

    private static void writeHeaders(HttpServerRequest request, HttpServerResponse response, NeedlePath path,
                                     NeedleStat stat) {
        stat.pairs().forEach(response::putHeader);
        response.putHeader("ETag", "\"" + stat.etag() + "\"");
        ReadSliceHandler.putSourceHeaders(response, stat);
        if (stat.lastModified() != 0) {
            response.putHeader("Last-Modified", HTTP_DATE.format(Instant.ofEpochSecond(stat.lastModified())));
        }
        String filename = path.filename().isEmpty() ? stat.name() : path.filename();
        String contentType = NeedleContentType.of(stat, filename.isEmpty() ? path.ext() : filename);
        if (contentType != null) {
            response.putHeader("Content-Type", contentType);
        }
        if (!filename.isEmpty()) {
            boolean download = goTrue(request.getParam("dl"));
            String escaped = URLEncoder.encode(filename, StandardCharsets.UTF_8).replace("\\", "\\\\").replace("\"", "\\\"");
            response.putHeader("Content-Disposition", (download ? "attachment" : "inline") + "; filename=\"" + escaped + "\"");
        }
        response.putHeader("Accept-Ranges", "bytes");
    }

    /** The true forms of Go's strconv.ParseBool, which the volume server parses {@code dl} with (else false). */
    static boolean goTrue(String value) {
        return value != null && switch (value) {
            case "1", "t", "T", "TRUE", "true", "True" -> true;
            default -> false;
        };
    }

    /** If-None-Match (when present it decides), else If-Modified-Since against Last-Modified. */
    private static boolean notModified(HttpServerRequest request, NeedleStat stat) {
        String inm = request.getHeader("If-None-Match");
        if (inm != null) {
            String etag = "\"" + stat.etag() + "\"";
            for (String candidate : inm.split(",")) {
                String c = candidate.trim();
                if (c.equals("*") || c.equals(etag) || c.equals("W/" + etag)) {
                    return true;
                }
            }
            return false;
        }
        String ims = request.getHeader("If-Modified-Since");
        if (ims != null && stat.lastModified() != 0) {
            try {
                return stat.lastModified() <= ZonedDateTime.parse(ims, HTTP_DATE).toEpochSecond();
            } catch (DateTimeParseException e) {
                return false;
            }
        }
        return false;
    }

    /** Whether Accept-Encoding allows gzip (listed, or via *, with a non-zero q). */
    static boolean acceptsGzip(String acceptEncoding) {
        if (acceptEncoding == null) {
            return false;
        }
        boolean viaStar = false;
        for (String item : acceptEncoding.split(",")) {
            String[] parts = item.trim().split(";");
            String coding = parts[0].trim().toLowerCase(Locale.ROOT);
            boolean allowed = true;
            for (int i = 1; i < parts.length; i++) {
                String p = parts[i].trim().toLowerCase(Locale.ROOT);
                if (p.startsWith("q=")) {
                    try {
                        allowed = Double.parseDouble(p.substring(2)) > 0;
                    } catch (NumberFormatException e) {
                        allowed = false;
                    }
                }
            }
            if (coding.equals("gzip") || coding.equals("x-gzip")) {
                return allowed;
            }
            if (coding.equals("*")) {
                viaStar = allowed;
            }
        }
        return viaStar;
    }
}
