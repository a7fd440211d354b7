package org.seaweedfs.rdma.http;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;

/**
 * POSIX ustar framing (POSIX.1-1988 as pax extends it): a 512-byte header before each member's bytes, zeros to the
 * next 512-byte boundary after them, two zero blocks at the end of the archive. Member names here are fids (short
 * ASCII) and sizes at most 4 GiB, so the plain ustar fields hold them and no pax extended header is needed.
 */
final class TarMember {

    static final int BLOCK = 512;
    /** The ustar name field's size: longer names would need a pax header. */
    static final int MAX_NAME = 100;
    private static final long MAX_SIZE = 077777777777L;

    private TarMember() {
    }

    /** The header of a regular file {@code name} of {@code size} bytes, modified at {@code mtime} (unix seconds). */
    static Buffer header(String name, long size, long mtime) {
        byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        if (nameBytes.length > MAX_NAME) {
            throw new IllegalArgumentException("tar member name longer than " + MAX_NAME + " bytes: " + name);
        }
        if (size < 0 || size > MAX_SIZE) {
            throw new IllegalArgumentException("tar member size out of the ustar range: " + size);
        }
        byte[] h = new byte[BLOCK];
        System.arraycopy(nameBytes, 0, h, 0, nameBytes.length);
        octal(h, 100, 8, 0644);                          // mode
        octal(h, 108, 8, 0);                             // uid
        octal(h, 116, 8, 0);                             // gid
        octal(h, 124, 12, size);
        octal(h, 136, 12, Math.max(0, Math.min(mtime, MAX_SIZE)));
        h[156] = '0';                                    // a regular file
        ascii(h, 257, "ustar\0");
        ascii(h, 263, "00");
        for (int i = 148; i < 156; i++) {
            h[i] = ' ';                                  // the checksum counts its own field as spaces
        }
        long sum = 0;
        for (byte b : h) {
            sum += b & 0xFF;
        }
        octal(h, 148, 7, sum);                           // six digits, NUL, and the space left in place
        return Buffer.buffer(h);
    }

    /** The zeros after a member of {@code size} bytes, up to the next block; empty when it ends on one. */
    static Buffer padding(long size) {
        int rest = (int) (size % BLOCK);
        return Buffer.buffer(new byte[rest == 0 ? 0 : BLOCK - rest]);
    }

    /** The archive's end: two zero blocks. */
    static Buffer end() {
        return Buffer.buffer(new byte[2 * BLOCK]);
    }

    /** {@code value} as zero-padded octal digits filling {@code width - 1} bytes, then a NUL. */
    private static void octal(byte[] h, int at, int width, long value) {
        String digits = Long.toOctalString(value);
        int pad = width - 1 - digits.length();
        for (int i = 0; i < pad; i++) {
            h[at + i] = '0';
        }
        ascii(h, at + pad, digits);
        h[at + width - 1] = 0;
    }

    private static void ascii(byte[] h, int at, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(bytes, 0, h, at, bytes.length);
    }
}
