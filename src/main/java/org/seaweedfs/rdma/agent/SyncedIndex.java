package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.protocol.SyncEntries;

import java.io.IOException;

/** What sidecars mirror of a served volume: an index they sync by position (a .idx, or an EC volume's virtual one). */
interface SyncedIndex {

    long volumeId();

    long epoch();

    /** The end of what sidecars can sync. */
    long appliedPosition();

    int idxEntryBytes();

    /** One SyncEntries of the applied range from {@code from}: at most {@code maxEntries}, {@code more} when cut. */
    SyncEntries syncFrame(long requestId, long from, int maxEntries) throws IOException;
}
