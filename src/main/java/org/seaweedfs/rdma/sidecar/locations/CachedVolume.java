package org.seaweedfs.rdma.sidecar.locations;

/**
 * What {@link LocationCache} keys its entries by: one volume epoch as one agent connection knows it. Compared by
 * identity, so a retired one's entries can never be found again.
 */
public interface CachedVolume {

    /** False once its locations may no longer be trusted (every read is then looked up at the agent). */
    boolean isCacheable();

    /** Entries of this volume came into the cache ({@code delta} > 0) or left it. */
    void cachedChanged(int delta);
}
