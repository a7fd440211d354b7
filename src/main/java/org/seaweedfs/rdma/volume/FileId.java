package org.seaweedfs.rdma.volume;

import java.util.Locale;

/**
 * A SeaweedFS file id: {@code <volumeId>,<key hex><cookie hex>}, e.g. {@code 3,01637037d6}.
 * The cookie is always the last 8 hex characters; the key is written without its leading zero bytes.
 */
public record FileId(long volumeId, long key, int cookie) {

    public static final long MAX_VOLUME_ID = 0xFFFF_FFFFL;

    public FileId {
        if (volumeId < 0 || volumeId > MAX_VOLUME_ID) {
            throw new IllegalArgumentException("volume id out of range (0.." + MAX_VOLUME_ID + "): " + volumeId);
        }
    }

    /**
     * Parses a plain file id as used in API parameters (no {@code _delta} suffix), as SeaweedFS's
     * {@code ParseFileIdFromString} does: the volume id as {@link #parseRequestVolumeId} reads it.
     */
    public static FileId parse(String text) {
        if (text == null || text.isEmpty()) {
            throw new IllegalArgumentException("file id is empty");
        }
        int comma = text.indexOf(',');
        if (comma < 0) {
            throw new IllegalArgumentException("file id '" + text + "' has no ',' between volume id and key");
        }
        return new FileId(parseRequestVolumeId(text, 0, comma), text, comma + 1, text.length(), 0, text);
    }

    /**
     * Parses the key-and-cookie part of a URL path as the volume server does: it may carry a
     * {@code _<decimal delta>} suffix (after the last '_', not at the start) that is added to the key; an
     * empty delta adds nothing.
     */
    public static FileId parsePath(long volumeId, String keyCookie) {
        if (keyCookie == null || keyCookie.isEmpty()) {
            throw new IllegalArgumentException("file id is empty");
        }
        String hex = keyCookie;
        long delta = 0;
        int underscore = keyCookie.lastIndexOf('_');
        if (underscore > 0) {
            hex = keyCookie.substring(0, underscore);
            String d = keyCookie.substring(underscore + 1);
            if (!isAsciiDecimal(d)) {
                throw new IllegalArgumentException("file id delta '" + d + "' is not a decimal number");
            }
            try {
                delta = d.isEmpty() ? 0 : Long.parseUnsignedLong(d);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("file id delta '" + d + "' is too large");
            }
        }
        return new FileId(volumeId, hex, 0, hex.length(), delta, keyCookie);
    }

    /**
     * A volume id in a request (a volume server URL, a file id), parsed as SeaweedFS does ({@code needle.NewVolumeId}):
     * any decimal that fits 64 bits (leading zeros allowed), kept to its low 32 bits, since a volume id is a u32
     * there ({@code 4294967299} reads volume 3).
     */
    public static long parseRequestVolumeId(String text) {
        if (text == null) {
            throw new IllegalArgumentException("volume id 'null' is not a decimal number");
        }
        return parseRequestVolumeId(text, 0, text.length());
    }

    /** As {@link #parseRequestVolumeId(String)}, of {@code text[from, to)}, read in place. */
    private static long parseRequestVolumeId(String text, int from, int to) {
        if (from == to || !isAsciiDecimal(text, from, to)) {
            throw new IllegalArgumentException("volume id '" + text.substring(from, to) + "' is not a decimal number");
        }
        try {
            return Long.parseUnsignedLong(text, from, to, 10) & MAX_VOLUME_ID;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("volume id " + text.substring(from, to) + " exceeds 64 bits");
        }
    }

    /** A volume id in a volume's file name: a decimal of at most 32 bits (nothing truncated). */
    public static long parseVolumeId(String text) {
        if (text == null || text.isEmpty() || text.length() > 10 || !isAsciiDecimal(text)) {
            throw new IllegalArgumentException("volume id '" + text + "' is not a decimal number");
        }
        long v = Long.parseLong(text);
        if (v > MAX_VOLUME_ID) {
            throw new IllegalArgumentException("volume id " + text + " exceeds 32 bits");
        }
        return v;
    }

    /** The key and cookie of the hex digits {@code text[from, to)}; ids are parsed on every needle request. */
    private FileId(long volumeId, String text, int from, int to, long delta, String original) {
        this(volumeId, parseKey(text, from, to, delta, original), parseCookie(text, to));
    }

    /** Checks the whole id (the cookie's part too: this runs first), then reads the key. */
    private static long parseKey(String text, int from, int to, long delta, String original) {
        checkHex(text, from, to, original);
        long key = hexValue(text, from, to - 8);
        long sum = key + delta;
        if (Long.compareUnsigned(sum, key) < 0) {
            throw new IllegalArgumentException("file id '" + original + "': key plus delta overflows 64 bits");
        }
        return sum;
    }

    /** After {@link #parseKey}: the last 8 hex digits. */
    private static int parseCookie(String text, int to) {
        return (int) hexValue(text, to - 8, to);
    }

    /** The value of checked hex digits {@code [from, to)}, at most 16 (an id has at most 24), read in place. */
    private static long hexValue(String text, int from, int to) {
        long value = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            value = value << 4 | (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10); // checked: 0-9, a-f, A-F only
        }
        return value;
    }

    private static void checkHex(String text, int from, int to, String original) {
        if (to - from <= 8) {
            throw new IllegalArgumentException("file id '" + original
                    + "': key and cookie need more than 8 hex characters");
        }
        if (to - from > 24) {
            throw new IllegalArgumentException("file id '" + original + "': key and cookie exceed 24 hex characters");
        }
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            // Character.digit would also accept non-ASCII digits (e.g. fullwidth); SeaweedFS does not.
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F')) {
                throw new IllegalArgumentException("file id '" + original + "': '" + c + "' is not a hex digit");
            }
        }
    }

    private static boolean isAsciiDecimal(String s) {
        return isAsciiDecimal(s, 0, s.length());
    }

    private static boolean isAsciiDecimal(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /**
     * The key and cookie as SeaweedFS writes them: key without leading zero bytes, then 8 hex of cookie.
     * Key 0 thus formats to the cookie alone, which (as in SeaweedFS) does not parse back.
     */
    public String keyCookieHex() {
        String hex = key == 0 ? "" : Long.toHexString(key);
        if ((hex.length() & 1) == 1) {
            hex = "0" + hex;
        }
        return hex + String.format(Locale.ROOT, "%08x", cookie);
    }

    @Override
    public String toString() {
        return volumeId + "," + keyCookieHex();
    }
}
