package org.seaweedfs.rdma.volume.ec;

import java.util.Arrays;

/**
 * Reed-Solomon erasure code over {@link Galois GF(2^8)}, byte-compatible with klauspost/reedsolomon's default
 * encoder (the one SeaweedFS's {@code ec.encode} uses): the encoding matrix is the {@code total x data}
 * Vandermonde matrix {@code v[r][c] = r^c} multiplied by the inverse of its top {@code data x data} square, so the
 * data shards are stored unchanged and any {@code data} shards rebuild the rest.
 *
 * <p>Written here rather than taken from a library: no Reed-Solomon codec with this construction is published
 * on Maven Central at a usable version (Backblaze's JavaReedSolomon, whose construction matches, has never been
 * released there). The code is small; its tests pin it to known vectors and to round trips over every erasure
 * pattern of the shard counts used.
 *
 * <p>Immutable and thread-safe (the matrices are never changed after construction).
 */
public final class ReedSolomon {

    /** klauspost/reedsolomon switches to another field above 256 shards; SeaweedFS caps shard ids at 32. */
    public static final int MAX_TOTAL_SHARDS = 256;

    private final int dataShards;
    private final int parityShards;
    /** total x data. */
    private final int[][] matrix;

    public ReedSolomon(int dataShards, int parityShards) {
        if (dataShards <= 0 || parityShards <= 0 || dataShards + parityShards > MAX_TOTAL_SHARDS) {
            throw new IllegalArgumentException("shard counts must be positive with at most " + MAX_TOTAL_SHARDS
                    + " in all: data " + dataShards + ", parity " + parityShards);
        }
        this.dataShards = dataShards;
        this.parityShards = parityShards;
        int total = dataShards + parityShards;
        int[][] vandermonde = new int[total][dataShards];
        for (int r = 0; r < total; r++) {
            for (int c = 0; c < dataShards; c++) {
                vandermonde[r][c] = Galois.power(r, c);
            }
        }
        int[][] top = Arrays.copyOf(vandermonde, dataShards);
        this.matrix = multiply(vandermonde, invert(top));
    }

    public int dataShards() {
        return dataShards;
    }

    public int parityShards() {
        return parityShards;
    }

    public int totalShards() {
        return dataShards + parityShards;
    }

    /** The encoding matrix's coefficient for output shard {@code row} and data shard {@code column}. */
    int coefficient(int row, int column) {
        return matrix[row][column];
    }

    /** Computes the parity shards {@code [data, total)} from the data shards, bytes {@code [offset, offset+length)}. */
    public void encodeParity(byte[][] shards, int offset, int length) {
        checkShards(shards, offset, length);
        byte[][] data = Arrays.copyOf(shards, dataShards);
        int[][] rows = Arrays.copyOfRange(matrix, dataShards, totalShards());
        byte[][] outputs = Arrays.copyOfRange(shards, dataShards, totalShards());
        code(rows, data, outputs, offset, length);
    }

    /**
     * Rebuilds every shard not marked present, from the present ones (bytes {@code [offset, offset+length)} of
     * each). Every array must exist and be long enough; the missing ones are overwritten.
     *
     * @throws IllegalArgumentException when fewer than {@code dataShards} shards are present
     */
    public void reconstruct(byte[][] shards, boolean[] present, int offset, int length) {
        reconstructData(shards, present, offset, length);
        int missingParity = 0;
        for (int i = dataShards; i < totalShards(); i++) {
            missingParity += present[i] ? 0 : 1;
        }
        if (missingParity > 0) {
            int[][] rows = new int[missingParity][];
            byte[][] out = new byte[missingParity][];
            for (int i = dataShards, k = 0; i < totalShards(); i++) {
                if (!present[i]) {
                    rows[k] = matrix[i];
                    out[k++] = shards[i];
                }
            }
            code(rows, Arrays.copyOf(shards, dataShards), out, offset, length);
        }
    }

    /**
     * Rebuilds only the missing data shards (what a reader needs); missing parity shards are left untouched and
     * may be null.
     *
     * @throws IllegalArgumentException when fewer than {@code dataShards} shards are present
     */
    public void reconstructData(byte[][] shards, boolean[] present, int offset, int length) {
        if (shards.length != totalShards() || present.length != totalShards()) {
            throw new IllegalArgumentException("expected " + totalShards() + " shards and presence flags, got "
                    + shards.length + " and " + present.length);
        }
        byte[][] check = shards.clone();
        for (int i = 0; i < check.length; i++) {
            if (check[i] == null && !present[i] && i >= dataShards) {
                check[i] = new byte[offset + length];
            }
        }
        checkShards(check, offset, length);
        int[] inputs = new int[dataShards];
        int found = 0;
        for (int i = 0; i < totalShards() && found < dataShards; i++) {
            if (present[i]) {
                inputs[found++] = i;
            }
        }
        if (found < dataShards) {
            throw new IllegalArgumentException("need " + dataShards + " shards to reconstruct, only " + found
                    + " present");
        }
        boolean dataMissing = false;
        for (int i = 0; i < dataShards; i++) {
            dataMissing |= !present[i];
        }
        if (dataMissing) {
            int[][] sub = new int[dataShards][];
            byte[][] in = new byte[dataShards][];
            for (int i = 0; i < dataShards; i++) {
                sub[i] = matrix[inputs[i]];
                in[i] = shards[inputs[i]];
            }
            int[][] decode = invert(sub);
            int missing = 0;
            for (int i = 0; i < dataShards; i++) {
                missing += present[i] ? 0 : 1;
            }
            int[][] rows = new int[missing][];
            byte[][] out = new byte[missing][];
            for (int i = 0, k = 0; i < dataShards; i++) {
                if (!present[i]) {
                    rows[k] = decode[i];
                    out[k++] = shards[i];
                }
            }
            code(rows, in, out, offset, length);
        }
    }

    private void checkShards(byte[][] shards, int offset, int length) {
        if (shards.length != totalShards()) {
            throw new IllegalArgumentException("expected " + totalShards() + " shards, got " + shards.length);
        }
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("negative offset " + offset + " or length " + length);
        }
        for (int i = 0; i < shards.length; i++) {
            if (shards[i] == null || shards[i].length - (long) offset < length) {
                throw new IllegalArgumentException("shard " + i + " is missing or shorter than " + offset + " + "
                        + length);
            }
        }
    }

    /** outputs[r] = sum over c of rows[r][c] * inputs[c], byte by byte. */
    private static void code(int[][] rows, byte[][] inputs, byte[][] outputs, int offset, int length) {
        int end = offset + length;
        for (int r = 0; r < rows.length; r++) {
            byte[] out = outputs[r];
            Arrays.fill(out, offset, end, (byte) 0);
            for (int c = 0; c < inputs.length; c++) {
                byte[] mul = Galois.multiplyRow(rows[r][c]);
                byte[] in = inputs[c];
                for (int i = offset; i < end; i++) {
                    out[i] ^= mul[in[i] & 0xFF];
                }
            }
        }
    }

    static int[][] multiply(int[][] a, int[][] b) {
        int inner = b.length;
        int[][] result = new int[a.length][b[0].length];
        for (int r = 0; r < a.length; r++) {
            for (int c = 0; c < b[0].length; c++) {
                int v = 0;
                for (int k = 0; k < inner; k++) {
                    v ^= Galois.multiply(a[r][k], b[k][c]);
                }
                result[r][c] = v;
            }
        }
        return result;
    }

    /** Gauss-Jordan inversion of a square matrix (the input is not changed). */
    static int[][] invert(int[][] square) {
        int n = square.length;
        int[][] work = new int[n][2 * n];
        for (int r = 0; r < n; r++) {
            if (square[r].length != n) {
                throw new IllegalArgumentException("matrix is not square");
            }
            System.arraycopy(square[r], 0, work[r], 0, n);
            work[r][n + r] = 1;
        }
        for (int c = 0; c < n; c++) {
            int pivot = c;
            while (pivot < n && work[pivot][c] == 0) {
                pivot++;
            }
            if (pivot == n) {
                throw new IllegalArgumentException("matrix is singular");
            }
            int[] swap = work[c];
            work[c] = work[pivot];
            work[pivot] = swap;
            int scale = work[c][c];
            if (scale != 1) {
                for (int k = 0; k < 2 * n; k++) {
                    work[c][k] = Galois.divide(work[c][k], scale);
                }
            }
            for (int r = 0; r < n; r++) {
                int factor = work[r][c];
                if (r != c && factor != 0) {
                    for (int k = 0; k < 2 * n; k++) {
                        work[r][k] ^= Galois.multiply(factor, work[c][k]);
                    }
                }
            }
        }
        int[][] inverse = new int[n][];
        for (int r = 0; r < n; r++) {
            inverse[r] = Arrays.copyOfRange(work[r], n, 2 * n);
        }
        return inverse;
    }
}
