package org.seaweedfs.rdma.volume;

/**
 * What a streamed read of one record found: its header, data length, tail and checksum verdict.
 * The data itself is not kept.
 */
public record NeedleSummary(long offset, int version, NeedleHeader header, long dataLength, NeedleTail tail,
                            int crc, CrcState crcState) {

    public NeedleMeta meta() {
        return tail.meta();
    }

    public long recordLength() {
        return NeedleLayout.recordLength(header.size(), version);
    }
}
