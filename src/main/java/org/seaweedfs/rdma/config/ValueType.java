package org.seaweedfs.rdma.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a configuration value is written, in YAML or in an environment variable (always a string there;
 * lists are comma-separated). Parsing throws {@link IllegalArgumentException} with the problem only;
 * the caller adds the key.
 */
enum ValueType {
    STRING("a string"),
    BOOLEAN("true or false"),
    INTEGER("an integer"),
    BYTES("a size like 65536, 64KiB or 1MiB"),
    DURATION("a duration like 500ms, 5s or 2m"),
    HOST_PORT("host:port"),
    LISTEN_ADDRESS("host:port (port 0: any free port)"),
    STRING_LIST("a list of strings"),
    HOST_PORT_LIST("a list of host:port"),
    NETWORK_LIST("a list of IP addresses or networks (127.0.0.1, 10.0.0.0/8, ::1)");

    private static final Pattern DURATION_TEXT = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");
    private static final Pattern BYTES_TEXT = Pattern.compile("(\\d+)\\s*(B|KiB|MiB|GiB|KB|MB|GB)?");
    private static final Map<String, Long> BYTE_UNITS = Map.of(
            "B", 1L, "KiB", 1L << 10, "MiB", 1L << 20, "GiB", 1L << 30,
            "KB", 1_000L, "MB", 1_000_000L, "GB", 1_000_000_000L);

    final String expected;

    ValueType(String expected) {
        this.expected = expected;
    }

    boolean isList() {
        return this == STRING_LIST || this == HOST_PORT_LIST || this == NETWORK_LIST;
    }

    /** @param raw a YAML scalar or list, or an environment string */
    Object parse(Object raw) {
        if (raw instanceof Map) {
            throw new IllegalArgumentException("expected " + expected + ", got a section");
        }
        if (isList()) {
            return parseList(raw);
        }
        if (raw instanceof List) {
            throw new IllegalArgumentException("expected " + expected + ", got a list");
        }
        String text = String.valueOf(raw).trim();
        switch (this) {
            case STRING:
                return text;
            case BOOLEAN:
                if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
                    return Boolean.parseBoolean(text);
                }
                throw mismatch(text);
            case INTEGER:
                try {
                    return Long.parseLong(text);
                } catch (NumberFormatException e) {
                    throw mismatch(text);
                }
            case BYTES:
                return parseBytes(text);
            case DURATION:
                return parseDuration(text);
            case HOST_PORT:
                return HostPort.parse(text);
            case LISTEN_ADDRESS:
                return HostPort.parseListen(text);
            default:
                throw new IllegalStateException(name());
        }
    }

    private List<Object> parseList(Object raw) {
        List<?> items;
        if (raw instanceof List<?> list) {
            items = list;
        } else {
            String text = String.valueOf(raw).trim();
            items = text.isEmpty() ? List.of() : List.of(text.split("\\s*,\\s*", -1));
        }
        List<Object> out = new ArrayList<>(items.size());
        for (Object item : items) {
            if (item == null || item instanceof Map || item instanceof List) {
                throw new IllegalArgumentException("expected " + expected + ", got an item that is not a scalar");
            }
            String text = String.valueOf(item).trim();
            if (text.isEmpty()) {
                throw new IllegalArgumentException("expected " + expected + ", got an empty item");
            }
            out.add(this == HOST_PORT_LIST ? HostPort.parse(text) : this == NETWORK_LIST ? ClientNetwork.parse(text)
                    : text);
        }
        return List.copyOf(out);
    }

    private long parseBytes(String text) {
        Matcher m = BYTES_TEXT.matcher(text);
        if (!m.matches()) {
            throw mismatch(text);
        }
        long unit = m.group(2) == null ? 1 : BYTE_UNITS.get(m.group(2));
        try {
            return Math.multiplyExact(Long.parseLong(m.group(1)), unit);
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is too large");
        }
    }

    private Duration parseDuration(String text) {
        Matcher m = DURATION_TEXT.matcher(text.toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw mismatch(text);
        }
        long n;
        try {
            n = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is too large");
        }
        switch (m.group(2)) {
            case "ms": return Duration.ofMillis(n);
            case "s": return Duration.ofSeconds(n);
            case "m": return Duration.ofMinutes(n);
            default: return Duration.ofHours(n);
        }
    }

    private IllegalArgumentException mismatch(String text) {
        return new IllegalArgumentException("expected " + expected + ", got '" + text + "'");
    }
}
