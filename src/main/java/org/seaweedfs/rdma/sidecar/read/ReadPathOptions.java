package org.seaweedfs.rdma.sidecar.read;

/**
 * Limits of one read path.
 *
 * @param maxInFlight    reads in progress at once; more fail at once with UNAVAILABLE (overloaded), never queue
 * @param readTimeoutMs  a read not finished by then fails with TIMEOUT
 * @param maxNeedleBytes the largest record body (Size) read; bigger needles fail with TOO_LARGE
 */
public record ReadPathOptions(int maxInFlight, long readTimeoutMs, long maxNeedleBytes) {

    public ReadPathOptions {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("max in-flight reads must be at least 1, got " + maxInFlight);
        }
        if (readTimeoutMs < 1) {
            throw new IllegalArgumentException("read timeout must be at least 1 ms, got " + readTimeoutMs);
        }
        if (maxNeedleBytes < 1) {
            throw new IllegalArgumentException("max needle bytes must be positive, got " + maxNeedleBytes);
        }
    }

    public static ReadPathOptions defaults() {
        return new ReadPathOptions(1024, 5_000, 64L << 20);
    }
}
