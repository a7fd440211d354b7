package org.seaweedfs.rdma.sidecar.fallback;

import io.vertx.core.MultiMap;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.ReadPath;
import org.seaweedfs.rdma.volume.FileId;

/**
 * A needle's metadata from a volume server's answer headers: name ({@code Content-Disposition}), mime, Last-Modified,
 * gzip, and the needle's pairs. The volume server writes each stored pair as a response header of its own name (an
 * upload's {@code Seaweed-Foo: bar} is stored as {@code Foo} and answered as {@code Foo: bar}), so the pairs are
 * the headers that are neither the volume server's own nor HTTP framing ({@link #NOT_PAIRS}). A header a proxy
 * between the sidecar and the volume server adds would be taken for a pair: point the sidecar at volume servers
 * directly.
 */
final class AnswerHeaders {

    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME;

    /** Lower-case names the volume server (or HTTP itself) sends that are never a needle's pair. */
    static final Set<String> NOT_PAIRS = Set.of("accept-ranges", "access-control-allow-credentials",
            "access-control-allow-origin", "access-control-allow-headers", "access-control-allow-methods",
            "access-control-expose-headers", "age", "connection", "content-disposition", "content-encoding",
            "content-length", "content-range", "content-type", "date", "etag", "keep-alive", "last-modified",
            "proxy-connection", "server", "trailer", "transfer-encoding", "upgrade", "vary", "via", "x-file-store");

    /** Stored pairs larger than this (upstream's limit: the pairs JSON is below 64 KiB) are not carried. */
    private static final int MAX_PAIR_BYTES = 65_535;

    private AnswerHeaders() {
    }

    static NeedleStat stat(FileId fid, long size, int crc, MultiMap headers) {
        return new NeedleStat(fid, size, crc,
                filename(headers.get("Content-Disposition")),
                headers.get("Content-Type"),
                lastModified(headers.get("Last-Modified")),
                pairs(headers),
                "gzip".equalsIgnoreCase(headers.get("Content-Encoding")),
                false,
                ReadPath.HTTP.wire);
    }

    /** The needle's pairs: every header outside {@link #NOT_PAIRS} (first value), bounded as upstream stores them. */
    static Map<String, String> pairs(MultiMap headers) {
        Map<String, String> pairs = new LinkedHashMap<>();
        int bytes = 2;
        for (String name : headers.names()) {
            if (NOT_PAIRS.contains(name.toLowerCase(Locale.ROOT))) {
                continue;
            }
            String value = headers.get(name);
            bytes += name.length() + value.length() + 6;
            if (bytes > MAX_PAIR_BYTES) {
                break;
            }
            pairs.put(name, value);
        }
        return pairs;
    }

    static String filename(String disposition) {
        if (disposition == null) {
            return "";
        }
        for (String part : disposition.split(";")) {
            String p = part.trim();
            String lower = p.toLowerCase(Locale.ROOT);
            if (lower.startsWith("filename*=utf-8''")) {
                return URLDecoder.decode(p.substring("filename*=utf-8''".length()).replace("+", "%2B"),
                        StandardCharsets.UTF_8);
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
}
