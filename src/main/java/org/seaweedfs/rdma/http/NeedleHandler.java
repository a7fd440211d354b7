package org.seaweedfs.rdma.http;

import io.netty.util.concurrent.FastThreadLocal;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import org.seaweedfs.rdma.sidecar.ByteChunks;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleInflater;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.manifest.ChunkedFile;

/**
 * GET and HEAD of a needle URL with the volume server's semantics (headers, conditional requests,
 * ranges, gzip). HEAD answers exactly what GET would, without the body.
 */
final class NeedleHandler implements Handler<RoutingContext> {

    /**
     * Header names and values sent with every read, encoded once (Vert.x writes their bytes as they are). Spelled as
     * the volume server's Go code sends them; Vert.x's own HttpHeaders constants are lower case.
     */
    private static final CharSequence ETAG = HttpHeaders.createOptimized("ETag");
    private static final CharSequence CONTENT_TYPE = HttpHeaders.createOptimized("Content-Type");
    private static final CharSequence ACCEPT_RANGES = HttpHeaders.createOptimized("Accept-Ranges");
    private static final CharSequence CONTENT_DISPOSITION = HttpHeaders.createOptimized("Content-Disposition");
    private static final CharSequence BYTES = HttpHeaders.createOptimized("bytes");
    private static final CharSequence CONTENT_LENGTH = HttpHeaders.createOptimized("Content-Length");
    private static final CharSequence CONTENT_ENCODING = HttpHeaders.createOptimized("Content-Encoding");
    private static final CharSequence LAST_MODIFIED = HttpHeaders.createOptimized("Last-Modified");
    private static final CharSequence RANGE = HttpHeaders.createOptimized("Range");

    /** Go's http.TimeFormat (RFC 1123 with a two-digit day, always GMT). */
    private static final DateTimeFormatter HTTP_DATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM uuuu HH:mm:ss 'GMT'", Locale.US)
            .withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter GO_DATE =
            DateTimeFormatter.ofPattern("dd MMM uuuu HH:mm:ss 'GMT'", Locale.US)
            .withResolverStyle(ResolverStyle.STRICT);
    private static final List<String> WEEKDAYS = List.of("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun");

    /** The bytes a sniff looks at, per thread (a sniff runs start to end on one thread, with no call out). */
    private static final FastThreadLocal<byte[]> SNIFF_SCRATCH = new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
            return new byte[ContentSniffer.SNIFF_LENGTH];
        }
    };

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
            ReadScope scope = new ReadScope(api.meters());
            api.source().read(path.fid()).onComplete(read -> {
                if (read.succeeded()) {
                    answer(request, path, read.result(), scope);
                } else {
                    scope.failed(response, read.cause(), true);
                }
            });
        });
    }

    private void answer(HttpServerRequest request, NeedlePath path, NeedleContent content, ReadScope scope) {
        NeedleStat stat = content.stat();
        HttpServerResponse response = request.response();
        if (stat.lastModified() != 0) {
            response.putHeader(LAST_MODIFIED, HTTP_DATE.format(Instant.ofEpochSecond(stat.lastModified())));
        }
        if (notModified(request, stat)) {
            content.release();
            scope.notModified(stat.source());
            response.putHeader(ETAG, stat.quotedEtag());
            ReadSliceHandler.putSourceHeaders(response, stat);
            response.setStatusCode(304).end();
            return;
        }
        if (stat.chunkManifest() && !"false".equals(request.getParam("cm"))) {
            expandManifest(request, path, content, scope);
            return;
        }
        writeHeaders(request, response, path, stat);
        boolean gzip = stat.compressed() && acceptsGzip(request.getHeader(HttpHeaders.ACCEPT_ENCODING));
        if (stat.compressed() && !gzip) {
            Future<Buffer> inflated = NeedleInflater.inflate(vertx, ByteChunks.of(content.chunks()),
                    api.maxNeedleBytes());
            content.release(); // inflate copied the stored bytes
            inflated.onComplete(ar -> {
                if (ar.failed()) {
                    scope.failed(response, ar.cause(), true);
                } else {
                    sendBody(request, response, stat, ByteChunks.of(ar.result()),
                            (ok, bytes) -> scope.sent(stat.source(), ok, bytes));
                }
            });
            return;
        }
        if (gzip) {
            response.putHeader(CONTENT_ENCODING, "gzip");
        }
        // The stored bytes as they are: sent at once, no future in between (most reads).
        sendBody(request, response, stat, ByteChunks.of(content.chunks()), (ok, bytes) -> {
            content.release();
            scope.sent(stat.source(), ok, bytes);
        });
    }

    /**
     * A chunk manifest read without {@code cm=false}: the file its chunks make ({@link ChunkedFile}, each chunk read
     * like any needle), with {@code X-File-Store: chunked}, the manifest's name and mime, and ranges over the whole
     * file. A manifest that cannot be parsed is served as the needle it is, as upstream does.
     */
    private void expandManifest(HttpServerRequest request, NeedlePath path, NeedleContent content, ReadScope scope) {
        NeedleStat stat = content.stat();
        HttpServerResponse response = request.response();
        ChunkedFile.serve(vertx, api.source(), content, api.maxNeedleBytes()).onComplete(ar -> {
            if (ar.failed()) {
                scope.failed(response, ar.cause(), true);
                return;
            }
            ChunkedFile.Expanded file = ar.result();
            if (!file.chunked()) { // not a manifest this can read: the stored bytes, as the needle they are
                NeedleStat plain =
                        new NeedleStat(stat.fid(), file.bytes().length(), stat.crc(), stat.name(), stat.mime(),
                        stat.lastModified(), stat.pairs(), false, false, stat.source());
                writeHeaders(request, response, path, plain);
                sendBody(request, response, plain, file.bytes(),
                        (ok, bytes) -> scope.sent(stat.source(), ok, bytes));
                return;
            }
            NeedleStat whole = new NeedleStat(stat.fid(), file.manifest().size(), stat.crc(), file.manifest().name(),
                    file.manifest().mime(), stat.lastModified(), stat.pairs(), false, false, file.source());
            response.putHeader("X-File-Store", "chunked");
            writeHeaders(request, response, path, whole);
            sendBody(request, response, whole, file.bytes(), (ok, bytes) -> scope.sent(file.source(), ok, bytes));
        });
    }

    /** Told once whether a body of {@code bytes} went out whole ({@code ok}) or not (the client went away first). */
    private interface Sent {
        void sent(boolean ok, long bytes);
    }

    /** Resolves ranges and writes the body; {@code done} hears how it went. */
    private void sendBody(HttpServerRequest request, HttpServerResponse response, NeedleStat stat, ByteChunks body,
                          Sent done) {
        long size = body.length();
        boolean head = request.method() == HttpMethod.HEAD;
        // HEAD ignores Range, as the volume server does: 200 with the whole length.
        ByteRanges ranges = ByteRanges.parse(head ? null : request.getHeader(RANGE), size);
        List<Buffer> pieces;
        long length;
        switch (ranges.kind()) {
            case UNSATISFIABLE -> {
                response.putHeader("Content-Range", "bytes */" + size);
                HttpErrors.send(response, 416, "range '" + request.getHeader("Range")
                        + "' is not satisfiable for " + size + " bytes").onComplete(ar -> done.sent(ar.succeeded(), 0));
                return;
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
                    // (multipart sets its own Content-Type: nothing to sniff)
                    length = pieces.stream().mapToLong(Buffer::length).sum();
                }
            }
        }
        response.putHeader(CONTENT_LENGTH, Long.toString(length));
        if (!head && length > 0 && !response.headers().contains(CONTENT_TYPE)
                && !hasValue(response, CONTENT_ENCODING)) {
            // Go's server sniffs a body sent without a Content-Type (and without a Content-Encoding).
            response.putHeader(CONTENT_TYPE, sniff(pieces));
        }
        Future<Void> end = head ? response.end() : BodyStreamer.stream(response, pieces);
        long bytes = head ? 0 : length;
        end.onComplete(ar -> done.sent(ar.succeeded(), bytes));
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

    /**
     * The volume server's order: ETag, the needle's pairs, the type the needle's mime or name gives, Accept-Ranges,
     * the {@code response-*} overrides, then Content-Disposition unless one is set already; the source headers
     * last, so no stored pair can claim an RDMA read.
     */
    private static void writeHeaders(HttpServerRequest request, HttpServerResponse response, NeedlePath path,
                                     NeedleStat stat) {
        response.putHeader(ETAG, stat.quotedEtag());
        stat.pairs().forEach(response::putHeader);
        String filename = path.filename().isEmpty() ? stat.name() : path.filename();
        String contentType = contentType(stat, filename);
        if (contentType != null) {
            response.putHeader(CONTENT_TYPE, contentType);
        }
        response.putHeader(ACCEPT_RANGES, BYTES);
        ResponseOverrides.apply(request, response);
        if (!filename.isEmpty() && !response.headers().contains("Content-Disposition")) {
            String type = goTrue(request.getParam("dl")) ? "attachment" : "inline";
            response.putHeader(CONTENT_DISPOSITION, GoMediaType.disposition(type, filename));
        }
        ReadSliceHandler.putSourceHeaders(response, stat);
    }

    /**
     * The stored mime unless it starts with application/octet-stream, else the type of the file name's extension
     * (the URL's file name, else the needle's); null when neither says (the body is then sniffed). As upstream, the
     * extension of a {@code /<vid>,<fid>.<ext>} URL does not count.
     */
    static String contentType(NeedleStat stat, String filename) {
        if (!stat.mime().isEmpty() && !stat.mime().startsWith(ContentSniffer.OCTET_STREAM)) {
            return stat.mime();
        }
        return GoMediaType.typeByFilename(filename);
    }

    private static boolean hasValue(HttpServerResponse response, CharSequence header) {
        String value = response.headers().get(header);
        return value != null && !value.isEmpty();
    }

    /** DetectContentType of the first bytes the body sends. */
    private static String sniff(List<Buffer> pieces) {
        byte[] head = SNIFF_SCRATCH.get(); // each loop's own: 512 new bytes were a tenth of a read's allocation
        int n = 0;
        for (Buffer piece : pieces) {
            int take = Math.min(piece.length(), head.length - n);
            piece.getBytes(0, take, head, n);
            n += take;
            if (n == head.length) {
                break;
            }
        }
        return ContentSniffer.detect(head, n);
    }

    /** The true forms of Go's strconv.ParseBool, which the volume server parses {@code dl} with (else false). */
    static boolean goTrue(String value) {
        return value != null && switch (value) {
            case "1", "t", "T", "TRUE", "true", "True" -> true;
            default -> false;
        };
    }

    /**
     * As the volume server decides: If-Modified-Since (Go's HTTP date form) not before the needle's Last-Modified
     * answers 304 whatever If-None-Match says; else If-None-Match equal to the exact quoted ETag (no lists, no
     * {@code W/}, no {@code *}) does.
     */
    private static boolean notModified(HttpServerRequest request, NeedleStat stat) {
        String ims = request.getHeader(HttpHeaders.IF_MODIFIED_SINCE);
        if (stat.lastModified() != 0 && ims != null && !ims.isEmpty()) {
            long since = goHttpDate(ims);
            if (since != Long.MIN_VALUE && since >= stat.lastModified()) {
                return true;
            }
        }
        String inm = request.getHeader(HttpHeaders.IF_NONE_MATCH);
        return inm != null && CharSequence.compare(stat.quotedEtag(), inm) == 0;
    }

    /** Unix seconds of a date in Go's http.TimeFormat ({@code Mon, 02 Jan 2006 15:04:05 GMT}), else MIN_VALUE. */
    static long goHttpDate(String text) {
        // Go checks the weekday is a weekday name but not that it fits the date.
        if (text.length() < 5 || text.charAt(3) != ',' || text.charAt(4) != ' '
                || !WEEKDAYS.contains(text.substring(0, 3))) {
            return Long.MIN_VALUE;
        }
        try {
            return LocalDateTime.parse(text.substring(5), GO_DATE).toEpochSecond(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            return Long.MIN_VALUE;
        }
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
