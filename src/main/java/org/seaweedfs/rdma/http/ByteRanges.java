package org.seaweedfs.rdma.http;

import java.util.ArrayList;
import java.util.List;

/**
 * A {@code Range} header resolved against a body length, as Go's net/http (and so the volume server)
 * does: suffix ranges, open ends clamped, ranges starting past the end dropped; nothing left, or bad
 * syntax, is unsatisfiable; ranges adding up to more than the body are ignored (the whole body is sent).
 */
record ByteRanges(Kind kind, List<Range> ranges) {

    enum Kind { WHOLE, PARTIAL, UNSATISFIABLE }

    record Range(long start, long length) {
        String contentRange(long total) {
            return "bytes " + start + "-" + (start + length - 1) + "/" + total;
        }
    }

    private static final ByteRanges WHOLE = new ByteRanges(Kind.WHOLE, List.of());
    private static final ByteRanges UNSATISFIABLE = new ByteRanges(Kind.UNSATISFIABLE, List.of());

    static ByteRanges parse(String header, long size) {
        if (header == null || header.isEmpty()) {
            return WHOLE;
        }
        if (!header.startsWith("bytes=")) {
            return UNSATISFIABLE;
        }
        List<Range> ranges = new ArrayList<>();
        for (String spec : header.substring("bytes=".length()).split(",")) {
            spec = spec.trim();
            if (spec.isEmpty()) {
                continue;
            }
            int dash = spec.indexOf('-');
            if (dash < 0) {
                return UNSATISFIABLE;
            }
            String first = spec.substring(0, dash).trim();
            String last = spec.substring(dash + 1).trim();
            long start;
            long length;
            if (first.isEmpty()) {
                long suffix = number(last);
                if (suffix < 0) {
                    return UNSATISFIABLE;
                }
                start = size - Math.min(suffix, size);
                length = size - start;
                if (length == 0) {
                    continue;
                }
            } else {
                start = number(first);
                if (start < 0) {
                    return UNSATISFIABLE;
                }
                if (start >= size) {
                    continue;
                }
                long end = size - 1;
                if (!last.isEmpty()) {
                    end = number(last);
                    if (end < 0 || start > end) {
                        return UNSATISFIABLE;
                    }
                    end = Math.min(end, size - 1);
                }
                length = end - start + 1;
            }
            ranges.add(new Range(start, length));
        }
        if (ranges.isEmpty()) {
            return UNSATISFIABLE;
        }
        long sum = ranges.stream().mapToLong(Range::length).sum();
        return sum > size ? WHOLE : new ByteRanges(Kind.PARTIAL, List.copyOf(ranges));
    }

    /** Non-negative decimal, else -1. */
    private static long number(String text) {
        if (text.isEmpty() || text.length() > 18 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        return Long.parseLong(text);
    }
}
