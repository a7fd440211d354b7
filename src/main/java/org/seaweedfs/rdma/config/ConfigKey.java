package org.seaweedfs.rdma.config;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * One configuration key: its dotted name, how it is written, its default (null: unset) and its allowed
 * values. The environment variable is derived from the name: {@code SEAWEEDFS_RDMA_} + the name with
 * dots and camel-case humps turned into underscores, upper case ({@code sidecar.maxInFlightReads} ->
 * {@code SEAWEEDFS_RDMA_SIDECAR_MAX_IN_FLIGHT_READS}).
 */
record ConfigKey(String name, ValueType type, Object defaultValue, long min, long max, List<String> choices) {

    static final String ENV_PREFIX = "SEAWEEDFS_RDMA_";

    static ConfigKey of(String name, ValueType type, Object defaultValue) {
        return new ConfigKey(name, type, defaultValue, Long.MIN_VALUE, Long.MAX_VALUE, List.of());
    }

    /** A number, size or duration (checked in milliseconds) within {@code min..max}. */
    static ConfigKey ranged(String name, ValueType type, Object defaultValue, long min, long max) {
        return new ConfigKey(name, type, defaultValue, min, max, List.of());
    }

    /** A string, or a list of strings, each one of {@code choices}. */
    static ConfigKey choice(String name, ValueType type, Object defaultValue, String... choices) {
        return new ConfigKey(name, type, defaultValue, Long.MIN_VALUE, Long.MAX_VALUE, List.of(choices));
    }

    String envName() {
        return envName(name);
    }

    /** The environment variable of the dotted key {@code name}. */
    static String envName(String name) {
        StringBuilder sb = new StringBuilder(ENV_PREFIX);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '.') {
                sb.append('_');
            } else {
                if (Character.isUpperCase(c)) {
                    sb.append('_');
                }
                sb.append(Character.toUpperCase(c));
            }
        }
        return sb.toString();
    }

    /** Parses and range-checks; the exception message is the problem without the key. */
    Object parse(Object raw) {
        Object value = type.parse(raw);
        long measured = value instanceof Duration d ? d.toMillis() : value instanceof Long n ? n : 0;
        if ((value instanceof Long || value instanceof Duration) && (measured < min || measured > max)) {
            throw new IllegalArgumentException("must be between " + bound(min) + " and " + bound(max) + ", got " + raw);
        }
        if (!choices.isEmpty()) {
            for (Object item : value instanceof List<?> l ? l : List.of(value)) {
                if (!choices.contains(String.valueOf(item).toLowerCase(Locale.ROOT))) {
                    throw new IllegalArgumentException("'" + item + "' is not one of " + String.join(", ", choices));
                }
            }
        }
        return value;
    }

    private String bound(long v) {
        return type == ValueType.DURATION ? v + "ms" : Long.toString(v);
    }
}
