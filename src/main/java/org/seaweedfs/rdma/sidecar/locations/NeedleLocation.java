package org.seaweedfs.rdma.sidecar.locations;

/**
 * Where a needle's record sits in its volume's {@code .dat}, as the needle map says.
 *
 * @param offset byte offset of the record (8-aligned)
 * @param size   the record's Size (body length); 0 means live but unreadable
 */
public record NeedleLocation(long offset, long size) {
}
