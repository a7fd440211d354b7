package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.protocol.Segment;
import org.seaweedfs.rdma.ucx.UcxMemoryRegion;

import java.nio.MappedByteBuffer;

/**
 * One read-only mapping of {@code .dat} bytes [fileOffset, fileOffset + length) and its UCX registration. The
 * mapping is held here strongly: UCX keeps only the raw address, so the buffer must outlive the registration.
 */
record MappedSegment(long fileOffset, MappedByteBuffer mapping, UcxMemoryRegion region) {

    long length() {
        return mapping.capacity();
    }

    long end() {
        return fileOffset + length();
    }

    Segment toSegment(int index) {
        return new Segment(index, fileOffset, length(), region.address(), region.packedRemoteKey());
    }
}
