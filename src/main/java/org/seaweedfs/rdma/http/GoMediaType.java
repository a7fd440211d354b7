package org.seaweedfs.rdma.http;

import io.vertx.core.http.MimeMapping;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * The two pieces of Go's {@code mime} package the volume server's answers depend on, written from its documented
 * behaviour: {@code FormatMediaType(disposition, {"filename": name})} for {@code Content-Disposition}, and
 * {@code TypeByExtension} for {@code Content-Type}.
 */
final class GoMediaType {

    /** Go's built-in table; it wins over the platform's table (here Vert.x's, standing in for /etc/mime.types). */
    private static final Map<String, String> BUILTIN = Map.ofEntries(
            Map.entry(".avif", "image/avif"),
            Map.entry(".css", "text/css; charset=utf-8"),
            Map.entry(".gif", "image/gif"),
            Map.entry(".htm", "text/html; charset=utf-8"),
            Map.entry(".html", "text/html; charset=utf-8"),
            Map.entry(".jpeg", "image/jpeg"),
            Map.entry(".jpg", "image/jpeg"),
            Map.entry(".js", "text/javascript; charset=utf-8"),
            Map.entry(".json", "application/json"),
            Map.entry(".mjs", "text/javascript; charset=utf-8"),
            Map.entry(".pdf", "application/pdf"),
            Map.entry(".png", "image/png"),
            Map.entry(".svg", "image/svg+xml"),
            Map.entry(".wasm", "application/wasm"),
            Map.entry(".webp", "image/webp"),
            Map.entry(".xml", "text/xml; charset=utf-8"));

    private static final String TSPECIALS = "()<>@,;:\\\"/[]?=";
    private static final char[] UPPER_HEX = "0123456789ABCDEF".toCharArray();

    private GoMediaType() {
    }

    /**
     * {@code <type>; filename=<value>}: the value bare when it is an RFC 2045 token, quoted (with {@code "} and
     * {@code \} backslash-escaped) when it is printable ASCII (or tab), else RFC 2231 {@code filename*=utf-8''}
     * with every byte outside attribute-char percent-encoded (upper-case hex).
     */
    static String disposition(String type, String filename) {
        StringBuilder b = new StringBuilder(type.length() + filename.length() + 16).append(type).append("; filename");
        byte[] utf8 = filename.getBytes(StandardCharsets.UTF_8);
        if (needsEncoding(filename)) {
            b.append("*=utf-8''");
            for (byte raw : utf8) {
                int ch = raw & 0xFF;
                if (ch <= ' ' || ch >= 0x7F || ch == '*' || ch == '\'' || ch == '%' || isTSpecial(ch)) {
                    b.append('%').append(UPPER_HEX[ch >> 4]).append(UPPER_HEX[ch & 0x0F]);
                } else {
                    b.append((char) ch);
                }
            }
            return b.toString();
        }
        b.append('=');
        if (isToken(filename)) {
            return b.append(filename).toString();
        }
        b.append('"');
        for (int i = 0; i < filename.length(); i++) {
            char c = filename.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\');
            }
            b.append(c);
        }
        return b.append('"').toString();
    }

    /** Go's needsEncoding: any character outside printable ASCII other than tab. */
    private static boolean needsEncoding(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ((c < ' ' || c > '~') && c != '\t') {
                return true;
            }
        }
        return false;
    }

    private static boolean isToken(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c <= 0x20 || c >= 0x7F || isTSpecial(c)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isTSpecial(int c) {
        return TSPECIALS.indexOf(c) >= 0;
    }

    /**
     * The type for a file name's extension (Go's {@code filepath.Ext}: from the last dot of the last path element),
     * or null. Text types carry {@code ; charset=utf-8} unless the table names a charset, as Go adds it.
     */
    static String typeByFilename(String filename) {
        String ext = extension(filename);
        if (ext.isEmpty()) {
            return null;
        }
        String lower = ext.toLowerCase(Locale.ROOT);
        String builtin = BUILTIN.getOrDefault(ext, BUILTIN.get(lower));
        if (builtin != null) {
            return builtin;
        }
        String type = MimeMapping.mimeTypeForExtension(lower.substring(1));
        if (type == null) {
            return null;
        }
        return type.startsWith("text/") && !type.contains("charset=") ? type + "; charset=utf-8" : type;
    }

    /** Go's filepath.Ext: the suffix from the last '.' of the last element, or "" (a name ending in '/' has none). */
    static String extension(String name) {
        for (int i = name.length() - 1; i >= 0; i--) {
            char c = name.charAt(i);
            if (c == '/') {
                return "";
            }
            if (c == '.') {
                return name.substring(i);
            }
        }
        return "";
    }
}
