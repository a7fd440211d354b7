package org.seaweedfs.rdma.volume;

/** Bits of a version 2/3 needle's flags byte (weed/storage/needle/needle.go). */
public final class NeedleFlags {

    public static final int COMPRESSED = 0x01;
    public static final int NAME = 0x02;
    public static final int MIME = 0x04;
    public static final int LAST_MODIFIED = 0x08;
    public static final int TTL = 0x10;
    public static final int PAIRS = 0x20;
    public static final int CHUNK_MANIFEST = 0x80;

    private NeedleFlags() {
    }

    public static boolean has(int flags, int bit) {
        return (flags & bit) != 0;
    }
}
