package org.seaweedfs.rdma.sidecar.fallback;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.NeedleChecksum;

/**
 * One read from one volume server: {@code GET http://<server>/<fid>}, with a read token when the cluster needs one
 * ({@link ReadTokens}). A whole needle is asked for with {@code Accept-Encoding: gzip} (a compressed needle arrives
 * as stored) and its CRC checked ({@link EtagCheck}). A slice is asked for as a {@code Range} (without gzip, so the
 * server applies it to the decompressed bytes, which the offsets count); its bytes cannot be checked here (the CRC
 * covers the whole stored needle), but need not be: the volume server reads the whole needle and checks its
 * CRC-32C before it answers a range, and answers an error, not bytes, on a mismatch. The 206's
 * {@code Content-Range} must be the range asked for (clamped at the end), else the answer is refused. A server that
 * ignores the range (200) sends the whole needle, which is cut here. A 416 says the slice starts at or past the end;
 * as SeaweedFS's 416 carries no length, a one-byte range then tells an empty slice at the end from one past it.
 *
 * <p>Bodies are bounded by {@code sidecar.maxNeedleBytes}: an announced Content-Length above it, a 413 from the
 * server, or a body that grows past it fails TOO_LARGE without buffering more.
 */
final class VolumeServerFetch {

    private static final Pattern CONTENT_RANGE = Pattern.compile("bytes (\\d+)-(\\d+)/(\\d+)");

    private final WebClient client;
    private final ReadTokens tokens;
    private final long maxNeedleBytes;
    private final long timeoutMillis;

    /** @param tokens signs read tokens; null when volume servers need none */
    VolumeServerFetch(WebClient client, ReadTokens tokens, long maxNeedleBytes, long timeoutMillis) {
        this.client = client;
        this.tokens = tokens;
        this.maxNeedleBytes = maxNeedleBytes;
        this.timeoutMillis = timeoutMillis;
    }

    /** The whole needle as stored, its CRC checked. */
    Future<NeedleContent> whole(String server, FileId fid) {
        return get(server, fid, null).map(response -> content(server, fid, response));
    }

    /** {@code Range: bytes=offset-last} (open-ended for the rest; one byte, then none kept, for a zero length). */
    Future<NeedleContent> slice(String server, FileId fid, long offset, long length, long maxPlainBytes) {
        long last = length < 0 || length > Long.MAX_VALUE - offset ? -1 : offset + Math.max(length, 1) - 1;
        String range = "bytes=" + offset + "-" + (last < 0 ? "" : Long.toString(last));
        return get(server, fid, range).compose(response -> response.statusCode() == 416 && offset > 0
                ? atOrPastTheEnd(server, fid, offset, maxPlainBytes)
                : Future.succeededFuture(slice(server, fid, response, range, offset, length, last, maxPlainBytes)));
    }

    /** {@code GET /<fid>}: with {@code range}, that Range; without, the stored bytes (gzip accepted). */
    private Future<HttpResponse<Buffer>> get(String server, FileId fid, String range) {
        HostPort address;
        try {
            address = HostPort.parse(server);
        } catch (IllegalArgumentException e) {
            return Future.failedFuture(new ReadFailure(ReadFailure.Kind.BAD_REQUEST, "volume server "
                    + e.getMessage()));
        }
        HttpRequest<Buffer> request = client.get(address.port(), address.host(), "/" + fid).timeout(timeoutMillis);
        if (range == null) {
            request.putHeader("Accept-Encoding", "gzip");
        } else {
            request.putHeader("Range", range);
        }
        if (tokens != null) {
            request.putHeader("Authorization", "Bearer " + tokens.forRead(fid));
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
            case 401 -> ReadFailure.unavailable("volume server " + server + " refused the read token for " + fid
                    + (tokens == null ? " (none sent: set http.jwtReadKey to the cluster's jwt.signing.read.key)"
                    : " (is http.jwtReadKey the cluster's jwt.signing.read.key?)"), null);
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
        EtagCheck.verify(server, fid, headers.get("ETag"), crc, body.length());
        return new HttpNeedleContent(AnswerHeaders.stat(fid, body.length(), crc, headers), body);
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
        int crc = EtagCheck.crcOf(server, fid, headers.get("ETag"));
        return new HttpNeedleContent(AnswerHeaders.stat(fid, size, crc, headers), bytes.slice(0, count));
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
        return slice(server, fid, 0, 1, maxPlainBytes).transform(ar -> {
            if (ar.failed()) {
                return Future.failedFuture(ar.cause() instanceof ReadFailure f
                        && f.kind() == ReadFailure.Kind.RANGE_NOT_SATISFIABLE ? ReadFailure.pastTheEnd(offset, 0)
                                : ar.cause());
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
