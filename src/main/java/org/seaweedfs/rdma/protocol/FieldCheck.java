package org.seaweedfs.rdma.protocol;

/** The field rules messages check in their constructors; each failure names the field. */
final class FieldCheck {
    private FieldCheck() {
    }

    static ProtocolException bad(String field, String problem) {
        return new ProtocolException(ErrorCode.BAD_FRAME, field + ": " + problem);
    }

    static void requestId(String message, long requestId, MessageType type) {
        boolean ok = switch (type.direction()) {
            case REQUEST, REPLY -> requestId != 0;
            case PUSH -> requestId == 0;
            case ANY -> true;
        };
        if (!ok) {
            throw bad(message + ".requestId", type.direction() == MessageType.Direction.PUSH
                    ? "must be 0 for a push" : "must not be 0 for a request or reply");
        }
    }

    static void u32(String field, long value) {
        if (value < 0 || value > ProtocolLimits.MAX_U32) {
            throw bad(field, "must be an unsigned 32-bit value, got " + value);
        }
    }

    static void nonNegative(String field, long value) {
        if (value < 0) {
            throw bad(field, "must not be negative, got " + value);
        }
    }

    static void range(String field, long value, long min, long max) {
        if (value < min || value > max) {
            throw bad(field, "must be in " + min + ".." + max + ", got " + value);
        }
    }

    /** A required, non-empty string of at most maxBytes UTF-8 bytes. */
    static String text(String field, String value, int maxBytes) {
        if (value == null || value.isEmpty()) {
            throw bad(field, "is required");
        }
        return optionalText(field, value, maxBytes);
    }

    /** A string (may be null or empty) of at most maxBytes UTF-8 bytes. */
    static String optionalText(String field, String value, int maxBytes) {
        if (value != null && utf8Length(value) > maxBytes) {
            throw bad(field, "longer than " + maxBytes + " bytes");
        }
        return value;
    }

    static byte[] bytes(String field, byte[] value, int minBytes, int maxBytes) {
        if (value == null) {
            throw bad(field, "is required");
        }
        if (value.length < minBytes || value.length > maxBytes) {
            throw bad(field, "length must be in " + minBytes + ".." + maxBytes + ", got " + value.length);
        }
        return value;
    }

    static <T> void count(String field, java.util.List<T> list, int max) {
        if (list == null) {
            throw bad(field, "is required");
        }
        if (list.size() > max) {
            throw bad(field, "more than " + max + " elements");
        }
    }

    /** UTF-8 length without encoding; an unpaired surrogate counts as the 1-byte '?' String.getBytes writes. */
    static int utf8Length(String s) {
        int bytes = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                bytes += 1;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
