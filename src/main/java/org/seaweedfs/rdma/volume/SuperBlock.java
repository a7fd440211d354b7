package org.seaweedfs.rdma.volume;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * The 8-byte head of a {@code .dat} file: version, replica placement, default ttl, compaction revision and,
 * for versions 2 and 3, {@code extraSize} bytes of protobuf (kept opaque). The first needle starts at
 * {@link #length()}.
 */
public record SuperBlock(int version, int replicaPlacement, Ttl ttl, int compactionRevision, byte[] extra) {

    public static final int HEADER_SIZE = 8;
    public static final int VERSION_1 = 1, VERSION_2 = 2, VERSION_3 = 3;

    public SuperBlock {
        checkVersion(version, "super block", 0);
        if (replicaPlacement < 0 || replicaPlacement > 255) {
            throw new IllegalArgumentException("replica placement must be a byte: " + replicaPlacement);
        }
        if (compactionRevision < 0 || compactionRevision > 0xFFFF) {
            throw new IllegalArgumentException("compaction revision must be a u16: " + compactionRevision);
        }
        extra = extra == null ? new byte[0] : extra.clone();
        if (extra.length > 0xFFFF) {
            throw new IllegalArgumentException("super block extra exceeds 65535 bytes: " + extra.length);
        }
        if (version == VERSION_1 && extra.length > 0) {
            throw new IllegalArgumentException("version 1 super blocks carry no extra bytes");
        }
    }

    /** A fresh super block for a writer: no replication, no ttl, revision 0, no extra. */
    public static SuperBlock of(int version) {
        return new SuperBlock(version, 0, Ttl.NONE, 0, null);
    }

    @Override
    public byte[] extra() {
        return extra.clone();
    }

    /** Bytes the super block occupies; the first needle record starts here. */
    public int length() {
        return HEADER_SIZE + extra.length;
    }

    public byte[] toBytes() {
        ByteBuffer b = ByteBuffer.allocate(length());
        b.put((byte) version).put((byte) replicaPlacement).put((byte) ttl.count()).put((byte) ttl.unit());
        b.putShort((short) compactionRevision).putShort((short) extra.length).put(extra);
        return b.array();
    }

    /** Reads and validates the super block at the start of a {@code .dat} file. */
    public static SuperBlock read(FileChannel dat, String source) throws IOException {
        long fileSize = dat.size();
        ByteBuffer head = ByteBuffer.allocate(HEADER_SIZE);
        PositionalRead.fully(dat, head, 0, source, "super block");
        int version = head.get(0) & 0xFF;
        checkVersion(version, source, 0);
        int extraSize = version == VERSION_1 ? 0 : head.getShort(6) & 0xFFFF;
        if (HEADER_SIZE + extraSize > fileSize) {
            throw new VolumeFormatException(source, 6, "super block extra size",
                    extraSize + " bytes claimed but the file holds only " + (fileSize - HEADER_SIZE)
                            + " after the header");
        }
        ByteBuffer extra = ByteBuffer.allocate(extraSize);
        PositionalRead.fully(dat, extra, HEADER_SIZE, source, "super block extra");
        return new SuperBlock(version, head.get(1) & 0xFF, Ttl.decode(head.get(2), head.get(3)),
                head.getShort(4) & 0xFFFF, extra.array());
    }

    static void checkVersion(int version, String source, long offset) {
        if (version < VERSION_1 || version > VERSION_3) {
            throw new VolumeFormatException(source, offset, "version", version
                    + " is not a needle version (1, 2 or 3)");
        }
    }
}
