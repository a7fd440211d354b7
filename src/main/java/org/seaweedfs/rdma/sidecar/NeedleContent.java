package org.seaweedfs.rdma.sidecar;

import io.vertx.core.buffer.Buffer;
import java.util.List;

/**
 * A verified needle's data as one or more chunks (large needles arrive in chunks of the pool's buffer
 * size). The chunks may wrap pooled registered memory: they are valid until {@link #release()}.
 */
public interface NeedleContent {

    NeedleStat stat();

    /**
     * The stored data, in order; their lengths sum to {@code stat().size()} (for a slice, see
     * {@link NeedleSource#readSlice}, only the slice's bytes).
     */
    List<Buffer> chunks();

    /** Returns pooled memory; the chunks must not be used afterwards. Idempotent. */
    void release();

    /** Whether every use of the chunks throws once {@link #release()} ran (else they may still show their bytes). */
    default boolean releaseRevokesChunks() {
        return false;
    }
}
