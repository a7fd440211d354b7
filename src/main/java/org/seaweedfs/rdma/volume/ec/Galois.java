package org.seaweedfs.rdma.volume.ec;

/**
 * Arithmetic in GF(2^8) with the reducing polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11d) and generator 2, the
 * field klauspost/reedsolomon (and so SeaweedFS's EC encoder) works in. Addition is XOR; multiplication goes
 * through a full 256 x 256 product table (64 KiB) built once from log/exp tables.
 */
final class Galois {

    static final int POLYNOMIAL = 0x11d;

    private static final int[] LOG = new int[256];
    private static final int[] EXP = new int[510];
    /** MUL[a][b] = a * b. */
    private static final byte[][] MUL = new byte[256][256];

    static {
        int x = 1;
        for (int i = 0; i < 255; i++) {
            EXP[i] = x;
            EXP[i + 255] = x;
            LOG[x] = i;
            x <<= 1;
            if (x >= 256) {
                x ^= POLYNOMIAL;
            }
        }
        for (int a = 0; a < 256; a++) {
            for (int b = 0; b < 256; b++) {
                MUL[a][b] = (byte) (a == 0 || b == 0 ? 0 : EXP[LOG[a] + LOG[b]]);
            }
        }
    }

    private Galois() {
    }

    static int multiply(int a, int b) {
        return MUL[a & 0xFF][b & 0xFF] & 0xFF;
    }

    /** The multiplication row for a constant: {@code row[b] = c * b}. */
    static byte[] multiplyRow(int c) {
        return MUL[c & 0xFF];
    }

    static int divide(int a, int b) {
        if (b == 0) {
            throw new ArithmeticException("division by zero in GF(2^8)");
        }
        if (a == 0) {
            return 0;
        }
        return EXP[LOG[a] - LOG[b] + 255];
    }

    /** a^n, with a^0 = 1 for every a (0^0 included), as the Vandermonde construction needs. */
    static int power(int a, int n) {
        if (n == 0) {
            return 1;
        }
        if (a == 0) {
            return 0;
        }
        return EXP[(LOG[a] * n) % 255];
    }
}
