package org.seaweedfs.rdma.http;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * POSIX ustar framing (POSIX.1-1988 as pax extends it): a 512-byte header before each member's bytes, zeros to the
 * next 512-byte boundary after them, two zero blocks at the end of the archive. Member names here are fids (short
 * ASCII) and sizes at most 4 GiB, so the plain ustar fields hold them and no pax extended header is needed.
 * Everything is appended to the caller's buffer: a member costs no buffer of its own.
 */
final class TarMember {

    static final int BLOCK = 512;
    /** The ustar name field's size: longer names would need a pax header. */
    static final int MAX_NAME = 100;
    private static final long MAX_SIZE = 077777777777L;
    private static final byte[] ZEROS = new byte[2 * BLOCK];
    /** The fields every member shares (mode, uid, gid, type, magic), their checksum counted once. */
    private static final byte[] TEMPLATE = template();
    private static final long TEMPLATE_SUM = sum(TEMPLATE);

    private TarMember() {
    }

    /**
     * Appends the header of a regular file {@code name} of {@code size} bytes, modified at {@code mtime} (unix
     * seconds), to {@code out}; {@code scratch} is a block the caller lends (its content is overwritten).
     */
    static void appendHeader(Buffer out, byte[] scratch, String name, long size, long mtime) {
        int length = name.length();
        if (length > MAX_NAME) {
            throw new IllegalArgumentException("tar member name longer than " + MAX_NAME + " bytes: " + name);
        }
        if (size < 0 || size > MAX_SIZE) {
            throw new IllegalArgumentException("tar member size out of the ustar range: " + size);
        }
        System.arraycopy(TEMPLATE, 0, scratch, 0, BLOCK);
        long sum = TEMPLATE_SUM;
        for (int i = 0; i < length; i++) {
            char c = name.charAt(i);
            if (c >= 0x80) {
                throw new IllegalArgumentException("tar member name not ASCII: " + name);
            }
            scratch[i] = (byte) c;
            sum += c;
        }
        sum += octal(scratch, 124, 12, size);
        sum += octal(scratch, 136, 12, Math.max(0, Math.min(mtime, MAX_SIZE)));
        octal(scratch, 148, 7, sum);                     // six digits, NUL, and the space left in place
        out.appendBytes(scratch, 0, BLOCK);
    }

    /** Appends the zeros after a member of {@code size} bytes, up to the next block; none when it ends on one. */
    static void appendPadding(Buffer out, long size) {
        int rest = (int) (size % BLOCK);
        if (rest != 0) {
            out.appendBytes(ZEROS, 0, BLOCK - rest);
        }
    }

    /** Appends the archive's end: two zero blocks. */
    static void appendEnd(Buffer out) {
        out.appendBytes(ZEROS);
    }

    private static byte[] template() {
        byte[] h = new byte[BLOCK];
        octal(h, 100, 8, 0644);                          // mode
        octal(h, 108, 8, 0);                             // uid
        octal(h, 116, 8, 0);                             // gid
        Arrays.fill(h, 148, 156, (byte) ' ');            // the checksum counts its own field as spaces
        h[156] = '0';                                    // a regular file
        byte[] magic = "ustar\u000000".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(magic, 0, h, 257, magic.length);
        return h;
    }

    private static long sum(byte[] h) {
        long sum = 0;
        for (byte b : h) {
            sum += b & 0xFF;
        }
        return sum;
    }

    /**
     * {@code value} as zero-padded octal digits filling {@code width - 1} bytes, then a NUL; returns the sum of the
     * bytes written (for the header's checksum, the field was zeros before).
     */
    private static long octal(byte[] h, int at, int width, long value) {
        long sum = 0;
        long rest = value;
        for (int i = at + width - 2; i >= at; i--) {
            byte digit = (byte) ('0' + (rest & 7));
            h[i] = digit;
            sum += digit;
            rest >>>= 3;
        }
        h[at + width - 1] = 0;
        return sum;
    }
}
