package org.seaweedfs.rdma.cli;

/** Builds one flat JSON object on one line (strings escaped per RFC 8259). */
final class JsonLine {

    private final StringBuilder text = new StringBuilder(192).append('{');

    JsonLine add(String key, String value) {
        name(key);
        quote(value);
        return this;
    }

    JsonLine add(String key, long value) {
        name(key);
        text.append(value);
        return this;
    }

    JsonLine add(String key, boolean value) {
        name(key);
        text.append(value);
        return this;
    }

    /** {@code inspect}'s line for a needle that could not be read: its fid, state "bad" and the error. */
    static JsonLine unreadableNeedle(String fid, String error) {
        return new JsonLine()
                .add("fid", fid)
                .add("size", 0)
                .add("crc", "")
                .add("crc_state", "bad")
                .add("name", "")
                .add("mime", "")
                .add("last_modified", 0)
                .add("compressed", false)
                .add("error", error);
    }

    @Override
    public String toString() {
        return text + "}";
    }

    private void name(String key) {
        if (text.length() > 1) {
            text.append(',');
        }
        quote(key);
        text.append(':');
    }

    private void quote(String s) {
        text.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> text.append("\\\"");
                case '\\' -> text.append("\\\\");
                case '\n' -> text.append("\\n");
                case '\r' -> text.append("\\r");
                case '\t' -> text.append("\\t");
                default -> {
                    if (c < 0x20) {
                        text.append(String.format("\\u%04x", (int) c));
                    } else {
                        text.append(c);
                    }
                }
            }
        }
        text.append('"');
    }
}
