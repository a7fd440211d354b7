package org.seaweedfs.rdma.protocol;

import java.util.Arrays;

/**
 * One registered mapping of a .dat file: bytes [fileOffset, fileOffset + length) of the file live at remote
 * virtual address {@code address}, readable with the UCX remote key packed in {@code remoteKey}.
 *
 * @param index      position in the volume's segment list
 * @param fileOffset where the mapping starts in the .dat (bytes, non-negative)
 * @param length     bytes mapped (positive)
 * @param address    u64 remote virtual address of fileOffset
 * @param remoteKey  the packed remote key (1..4096 bytes), not copied
 */
public record Segment(int index, long fileOffset, long length, long address, byte[] remoteKey) {
    public Segment {
        FieldCheck.range("Segment.index", index, 0, ProtocolLimits.MAX_SEGMENTS - 1);
        FieldCheck.nonNegative("Segment.fileOffset", fileOffset);
        FieldCheck.range("Segment.length", length, 1, Long.MAX_VALUE - fileOffset);
        FieldCheck.bytes("Segment.remoteKey", remoteKey, 1, ProtocolLimits.MAX_REMOTE_KEY_BYTES);
    }

    /** The .dat offset just past this segment. */
    public long end() {
        return fileOffset + length;
    }

    /** The remote address of a .dat offset inside this segment. */
    public long addressOf(long datOffset) {
        return address + (datOffset - fileOffset);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Segment s && index == s.index && fileOffset == s.fileOffset && length == s.length
                && address == s.address && Arrays.equals(remoteKey, s.remoteKey);
    }

    @Override
    public int hashCode() {
        return ((Long.hashCode(fileOffset) * 31 + Long.hashCode(length)) * 31 + Long.hashCode(address)) * 31
                + Arrays.hashCode(remoteKey);
    }

    @Override
    public String toString() {
        return "Segment[index=" + index + ", fileOffset=" + fileOffset + ", length=" + length + ", address=0x"
                + Long.toHexString(address) + ", remoteKey=" + remoteKey.length + " bytes]";
    }
}
