package org.seaweedfs.rdma.volume;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Appends entries to a {@code .idx} file; each entry is written whole with one positional write. */
public final class IndexWriter implements Closeable {

    private final FileChannel idx;
    private final IndexFormat format;
    private final ByteBuffer entry;
    private long position;

    /** Opens (creating if needed) an index for appending; a torn trailing entry is cut off first. */
    public IndexWriter(Path path, IndexFormat format) throws IOException {
        this.idx = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        this.format = format;
        this.entry = ByteBuffer.allocate(format.entrySize());
        long size = idx.size();
        this.position = size - size % format.entrySize();
        if (position != size) {
            idx.truncate(position);
        }
    }

    public IndexFormat format() {
        return format;
    }

    /** Appends key -> (offset in bytes, size); size {@link IndexFormat#TOMBSTONE_SIZE} records a deletion. */
    public void append(long key, long offset, int size) throws IOException {
        entry.clear();
        format.put(entry, key, offset, size);
        entry.flip();
        while (entry.hasRemaining()) {
            position += idx.write(entry, position);
        }
    }

    /** Bytes written so far (the end of the last whole entry). */
    public long position() {
        return position;
    }

    public void force() throws IOException {
        idx.force(false);
    }

    @Override
    public void close() throws IOException {
        idx.close();
    }
}
