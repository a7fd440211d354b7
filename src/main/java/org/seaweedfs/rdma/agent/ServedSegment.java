package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.protocol.Segment;
import org.seaweedfs.rdma.ucx.UcxMemoryRegion;

import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;

/**
 * {@code .dat} bytes [fileOffset, fileOffset + length) as sidecars read them: a read-only mapping of the file
 * registered with UCX, or a copy in UCX-allocated memory, which may have spare capacity past {@code length} for a
 * growing tail. {@link #bytes()} is the one source the agent reads as well (lookups, read-through): the mapping, or
 * the copy. Held strongly: UCX keeps only the raw address. Compared by identity (a buffer's equals reads its bytes).
 */
final class ServedSegment {

    private final long fileOffset;
    private final long length;
    private final ByteBuffer bytes;
    private final UcxMemoryRegion region;
    private final boolean copy;
    /** Whether its memory counts against {@code agent.volumeMemoryLimit} (volume bytes do, an index copy not). */
    private final boolean counted;

    private ServedSegment(long fileOffset, long length, ByteBuffer bytes, UcxMemoryRegion region, boolean copy,
                          boolean counted) {
        this.fileOffset = fileOffset;
        this.length = length;
        this.bytes = bytes;
        this.region = region;
        this.copy = copy;
        this.counted = counted;
    }

    static ServedSegment mapped(long fileOffset, MappedByteBuffer mapping, UcxMemoryRegion region) {
        return new ServedSegment(fileOffset, mapping.capacity(), mapping, region, false, false);
    }

    /** The first {@code length} bytes of {@code region} hold the file's bytes from {@code fileOffset}. */
    static ServedSegment copied(long fileOffset, long length, UcxMemoryRegion region) {
        if (length > region.length()) {
            throw new IllegalArgumentException(length + " bytes do not fit a " + region.length() + "-byte region");
        }
        return new ServedSegment(fileOffset, length, region.buffer(), region, true, true);
    }

    /** UCX memory holding no volume bytes (an exposed needle index): freed on release, not counted in the limit. */
    static ServedSegment uncounted(UcxMemoryRegion region) {
        return new ServedSegment(0, region.length(), region.buffer(), region, true, false);
    }

    boolean counted() {
        return counted;
    }

    /** The same copy, holding more of the file (the bytes up to {@code newLength} are already written). */
    ServedSegment extendedTo(long newLength) {
        if (!copy || newLength < length || newLength > capacity()) {
            throw new IllegalStateException("cannot extend " + this + " to " + newLength + " bytes");
        }
        return new ServedSegment(fileOffset, newLength, bytes, region, true, true);
    }

    long fileOffset() {
        return fileOffset;
    }

    long length() {
        return length;
    }

    long end() {
        return fileOffset + length;
    }

    /** Bytes of the file this segment can hold without being replaced. */
    long capacity() {
        return copy ? region.length() : length;
    }

    /** Whether the bytes are a copy in UCX-allocated memory (freed, not just deregistered, on release). */
    boolean isCopy() {
        return copy;
    }

    ByteBuffer bytes() {
        return bytes;
    }

    UcxMemoryRegion region() {
        return region;
    }

    Segment toSegment(int index) {
        return new Segment(index, fileOffset, length, region.address(), region.packedRemoteKey());
    }

    @Override
    public String toString() {
        return (copy ? "copy of" : "mapping of") + " bytes " + fileOffset + ".." + end() + " in " + region;
    }
}
