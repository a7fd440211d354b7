package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.volume.IndexFormat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Reads {@code .idx} entries as stored (key, offset in bytes, raw size) between two entry boundaries, in blocks,
 * from a channel the caller keeps open (so an epoch keeps reading its own file after a compaction renamed a new one
 * over the path). Used both to follow the index and to answer sync requests. Confined to one thread.
 */
final class IndexTail {

    /** Sees one entry; returns false to stop before it (the entry is not consumed). */
    interface EntryVisitor {
        boolean visit(long key, long offset, int size);
    }

    private static final int ENTRIES_PER_READ = 4096;

    private final IndexFormat format;
    private final ByteBuffer block;

    IndexTail(IndexFormat format) {
        this.format = format;
        this.block = ByteBuffer.allocate(ENTRIES_PER_READ * format.entrySize());
    }

    IndexFormat format() {
        return format;
    }

    /** The last entry boundary at or below {@code size}. */
    long completeEnd(long size) {
        return size - size % format.entrySize();
    }

    /**
     * Visits the entries in [from, to) (both entry boundaries) until the visitor stops; returns the position after
     * the last entry consumed.
     */
    long read(FileChannel idx, long from, long to, EntryVisitor visitor, String source) throws IOException {
        int entrySize = format.entrySize();
        long at = from;
        while (at < to) {
            block.clear().limit((int) Math.min(block.capacity(), to - at));
            long readAt = at;
            while (block.hasRemaining()) {
                int n = idx.read(block, readAt);
                if (n <= 0) {
                    throw new IOException(source + ": index ends at " + readAt + " while reading entries up to " + to);
                }
                readAt += n;
            }
            for (int p = 0; p < block.limit(); p += entrySize) {
                if (!visitor.visit(format.key(block, p), format.offset(block, p), format.size(block, p))) {
                    return at + p;
                }
            }
            at += block.limit();
        }
        return at;
    }
}
