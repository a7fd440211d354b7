package org.seaweedfs.rdma.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a ustar archive strictly, for checking {@code POST /batch} answers: every header's checksum, magic and
 * type, the padding, and the two zero blocks at the end (nothing after them).
 */
public final class TarEntries {

    /** One member. */
    public record Entry(String name, long mtime, byte[] data) {
        public String text() {
            return new String(data, StandardCharsets.UTF_8);
        }
    }

    private TarEntries() {
    }

    public static List<Entry> read(byte[] tar) {
        List<Entry> out = new ArrayList<>();
        int at = 0;
        while (true) {
            if (at + 512 > tar.length) {
                throw new AssertionError("archive ends without its two zero blocks at " + at);
            }
            byte[] h = Arrays.copyOfRange(tar, at, at + 512);
            if (allZero(h)) {
                if (at + 1024 != tar.length || !allZero(Arrays.copyOfRange(tar, at + 512, at + 1024))) {
                    throw new AssertionError("archive does not end with exactly two zero blocks at " + at);
                }
                return out;
            }
            long sum = 0;
            for (int i = 0; i < 512; i++) {
                sum += i >= 148 && i < 156 ? ' ' : h[i] & 0xFF;
            }
            if (sum != octal(h, 148, 8)) {
                throw new AssertionError("bad header checksum at " + at);
            }
            if (!"ustar\0".equals(new String(h, 257, 6, StandardCharsets.US_ASCII)) || h[156] != '0') {
                throw new AssertionError("not a ustar regular file at " + at);
            }
            String name = cString(h, 0, 100);
            long size = octal(h, 124, 12);
            long mtime = octal(h, 136, 12);
            at += 512;
            out.add(new Entry(name, mtime, Arrays.copyOfRange(tar, at, Math.toIntExact(at + size))));
            at += (int) ((size + 511) / 512 * 512);
        }
    }

    private static boolean allZero(byte[] b) {
        for (byte x : b) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }

    private static String cString(byte[] h, int at, int width) {
        int end = at;
        while (end < at + width && h[end] != 0) {
            end++;
        }
        return new String(h, at, end - at, StandardCharsets.UTF_8);
    }

    private static long octal(byte[] h, int at, int width) {
        String s = cString(h, at, width).trim();
        return s.isEmpty() ? 0 : Long.parseLong(s, 8);
    }
}
