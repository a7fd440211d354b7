package org.seaweedfs.rdma.http;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * The Content-Type Go's {@code http.DetectContentType} gives the first 512 bytes of a body (the subset of the
 * WHATWG MIME sniffing standard Go implements): HTML tags and XML after leading white space, PDF, PostScript,
 * UTF BOMs, images, audio/video, fonts, archives, WebAssembly, then {@code text/plain} when no byte is binary,
 * else {@code application/octet-stream}. The volume server sends it when neither the needle's mime nor its
 * name says a type (Go's server sniffs bodies without a Content-Type).
 */
final class ContentSniffer {

    /** How much of a body is looked at. */
    static final int SNIFF_LENGTH = 512;
    static final String OCTET_STREAM = "application/octet-stream";
    private static final String TEXT_PLAIN = "text/plain; charset=utf-8";

    private interface Signature {
        /** The type when {@code data[0..length)} matches, else null. */
        String match(byte[] data, int length, int firstNonWhitespace);

        /** False when no body starting with the byte {@code b} can match. */
        default boolean mayStartWith(int b) {
            return true;
        }
    }

    private static final List<Signature> SIGNATURES = List.of(
            html("<!DOCTYPE HTML"), html("<HTML"), html("<HEAD"), html("<SCRIPT"), html("<IFRAME"), html("<H1"),
            html("<DIV"), html("<FONT"), html("<TABLE"), html("<A"), html("<STYLE"), html("<TITLE"), html("<B"),
            html("<BODY"), html("<BR"), html("<P"), html("<!--"),
            masked("\u00FF\u00FF\u00FF\u00FF\u00FF", "<?xml", true, "text/xml; charset=utf-8"),
            exact("%PDF-", "application/pdf"),
            exact("%!PS-Adobe-", "application/postscript"),
            masked("\u00FF\u00FF\0\0", "\u00FE\u00FF\0\0", false, "text/plain; charset=utf-16be"),
            masked("\u00FF\u00FF\0\0", "\u00FF\u00FE\0\0", false, "text/plain; charset=utf-16le"),
            masked("\u00FF\u00FF\u00FF\0", "\u00EF\u00BB\u00BF\0", false, TEXT_PLAIN),
            exact("\0\0\1\0", "image/x-icon"),
            exact("\0\0\2\0", "image/x-icon"),
            exact("BM", "image/bmp"),
            exact("GIF87a", "image/gif"),
            exact("GIF89a", "image/gif"),
            masked("\u00FF\u00FF\u00FF\u00FF\0\0\0\0\u00FF\u00FF\u00FF\u00FF\u00FF\u00FF", "RIFF\0\0\0\0WEBPVP", false,
                    "image/webp"),
            exact("\u0089PNG\r\n\u001A\n", "image/png"),
            exact("\u00FF\u00D8\u00FF", "image/jpeg"),
            masked("\u00FF\u00FF\u00FF\u00FF", ".snd", false, "audio/basic"),
            masked("\u00FF\u00FF\u00FF\u00FF\0\0\0\0\u00FF\u00FF\u00FF\u00FF", "FORM\0\0\0\0AIFF", false, "audio/aiff"),
            masked("\u00FF\u00FF\u00FF", "ID3", false, "audio/mpeg"),
            masked("\u00FF\u00FF\u00FF\u00FF\u00FF", "OggS\0", false, "application/ogg"),
            masked("\u00FF\u00FF\u00FF\u00FF\u00FF\u00FF\u00FF\u00FF", "MThd\0\0\0\6", false, "audio/midi"),
            masked("\u00FF\u00FF\u00FF\u00FF\0\0\0\0\u00FF\u00FF\u00FF\u00FF", "RIFF\0\0\0\0AVI ", false, "video/avi"),
            masked("\u00FF\u00FF\u00FF\u00FF\0\0\0\0\u00FF\u00FF\u00FF\u00FF", "RIFF\0\0\0\0WAVE", false, "audio/wave"),
            ContentSniffer::mp4,
            exact("\u001A\u0045\u00DF\u00A3", "video/webm"),
            masked("\0".repeat(34) + "\u00FF\u00FF", "\0".repeat(34) + "LP", false, "application/vnd.ms-fontobject"),
            exact("\0\1\0\0", "font/ttf"),
            exact("OTTO", "font/otf"),
            exact("ttcf", "font/collection"),
            exact("wOFF", "font/woff"),
            exact("wOF2", "font/woff2"),
            exact("\u001F\u008B\u0008", "application/x-gzip"),
            exact("PK\3\4", "application/zip"),
            exact("Rar!\u001A\u0007\0", "application/x-rar-compressed"),
            exact("Rar!\u001A\u0007\1\0", "application/x-rar-compressed"),
            exact("\0asm", "application/wasm"),
            ContentSniffer::text);

    /**
     * The signatures a body can match, by its first byte: most bodies rule out all but two or three of them at once
     * (the full list cost about 2 % of the sidecar's Java time per 4 KiB read).
     */
    private static final Signature[][] BY_FIRST_BYTE = new Signature[256][];
    private static final Signature[] ALL = SIGNATURES.toArray(Signature[]::new);

    static {
        for (int b = 0; b < 256; b++) {
            int first = b;
            BY_FIRST_BYTE[b] = SIGNATURES.stream().filter(sig -> sig.mayStartWith(first)).toArray(Signature[]::new);
        }
    }

    private ContentSniffer() {
    }

    /** The type of a body starting with {@code data[0..length)} (only the first 512 bytes count). */
    static String detect(byte[] data, int length) {
        int n = Math.min(Math.min(length, data.length), SNIFF_LENGTH);
        int firstNonWhitespace = 0;
        while (firstNonWhitespace < n && isWhitespace(data[firstNonWhitespace])) {
            firstNonWhitespace++;
        }
        for (Signature s : n == 0 ? ALL : BY_FIRST_BYTE[data[0] & 0xFF]) {
            String type = s.match(data, n, firstNonWhitespace);
            if (type != null) {
                return type;
            }
        }
        return OCTET_STREAM;
    }

    static String detect(byte[] data) {
        return detect(data, data.length);
    }

    private static boolean isWhitespace(byte b) {
        return b == '\t' || b == '\n' || b == 0x0C || b == '\r' || b == ' ';
    }

    private static byte[] bytes(String latin1) {
        return latin1.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** An HTML tag (ASCII letters compared case-insensitively) after white space, then a space or '>'. */
    private static Signature html(String tag) {
        byte[] pattern = bytes(tag);
        return gated(ContentSniffer::mayStartTag, (data, length, start) -> {
            if (length - start < pattern.length + 1) {
                return null;
            }
            for (int i = 0; i < pattern.length; i++) {
                byte p = pattern[i];
                byte d = data[start + i];
                if (p >= 'A' && p <= 'Z') {
                    d &= (byte) 0xDF;
                }
                if (p != d) {
                    return null;
                }
            }
            byte next = data[start + pattern.length];
            return next == ' ' || next == '>' ? "text/html; charset=utf-8" : null;
        });
    }

    /** Whether a body starting with {@code b} may have a tag after its leading white space. */
    private static boolean mayStartTag(int b) {
        return b == '<' || isWhitespace((byte) b);
    }

    /** {@code body}, ruled out for bodies whose first byte fails {@code firstByte}. */
    private static Signature gated(IntPredicate firstByte, Signature body) {
        return new Signature() {
            @Override
            public String match(byte[] data, int length, int firstNonWhitespace) {
                return body.match(data, length, firstNonWhitespace);
            }

            @Override
            public boolean mayStartWith(int b) {
                return firstByte.test(b);
            }
        };
    }

    private static Signature masked(String mask, String pattern, boolean skipWhitespace, String type) {
        byte[] m = bytes(mask);
        byte[] p = bytes(pattern);
        IntPredicate first = skipWhitespace ? ContentSniffer::mayStartTag : b -> (b & m[0]) == (p[0] & 0xFF);
        return gated(first, (data, length, firstNonWhitespace) -> {
            int start = skipWhitespace ? firstNonWhitespace : 0;
            if (length - start < p.length) {
                return null;
            }
            for (int i = 0; i < p.length; i++) {
                if ((data[start + i] & m[i]) != p[i]) {
                    return null;
                }
            }
            return type;
        });
    }

    private static Signature exact(String prefix, String type) {
        byte[] p = bytes(prefix);
        return gated(b -> b == (p[0] & 0xFF), (data, length, start) -> {
            if (length < p.length) {
                return null;
            }
            for (int i = 0; i < p.length; i++) {
                if (data[i] != p[i]) {
                    return null;
                }
            }
            return type;
        });
    }

    /** An ISO base media file: an {@code ftyp} box whose brands include one starting with "mp4". */
    private static String mp4(byte[] data, int length, int start) {
        if (length < 12) {
            return null;
        }
        long boxSize =
                ((data[0] & 0xFFL) << 24) | ((data[1] & 0xFF) << 16) | ((data[2] & 0xFF) << 8) | (data[3] & 0xFF);
        if (length < boxSize || boxSize % 4 != 0 || data[4] != 'f' || data[5] != 't' || data[6] != 'y' || data[7]
                != 'p') {
            return null;
        }
        for (int at = 8; at < boxSize; at += 4) {
            if (at != 12 && data[at] == 'm' && data[at + 1] == 'p' && data[at + 2] == '4') {
                return "video/mp4";
            }
        }
        return null;
    }

    /** Plain text: no binary control byte after the leading white space. */
    private static String text(byte[] data, int length, int start) {
        for (int i = start; i < length; i++) {
            int b = data[i] & 0xFF;
            if (b <= 0x08 || b == 0x0B || (b >= 0x0E && b <= 0x1A) || (b >= 0x1C && b <= 0x1F)) {
                return null;
            }
        }
        return TEXT_PLAIN;
    }
}
