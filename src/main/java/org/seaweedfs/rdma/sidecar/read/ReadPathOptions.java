package org.seaweedfs.rdma.sidecar.read;

/**
 * Limits of one read path. How many reads run at once is not one of them: each read was admitted once, by the
 * face that received it ({@link org.seaweedfs.rdma.sidecar.Admission}).
 *
 * @param readTimeoutMs  a read not finished by then fails with TIMEOUT
 * @param maxNeedleBytes the largest record body (Size) read; bigger needles fail with TOO_LARGE
 */
public record ReadPathOptions(long readTimeoutMs, long maxNeedleBytes) {

    public ReadPathOptions {
        if (readTimeoutMs < 1) {
            throw new IllegalArgumentException("read timeout must be at least 1 ms, got " + readTimeoutMs);
        }
        if (maxNeedleBytes < 1) {
            throw new IllegalArgumentException("max needle bytes must be positive, got " + maxNeedleBytes);
        }
    }

    public static ReadPathOptions defaults() {
        return new ReadPathOptions(5_000, 64L << 20);
    }
}
