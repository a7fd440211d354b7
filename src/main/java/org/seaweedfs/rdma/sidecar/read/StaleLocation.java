package org.seaweedfs.rdma.sidecar.read;

/**
 * The record read is not the one the needle map promised (another key or Size, or no segment covers it): the
 * location is stale, e.g. the volume was compacted. The reader looks the needle up again once.
 */
final class StaleLocation extends RuntimeException {

    StaleLocation(String message) {
        super(message, null, false, false);
    }
}
