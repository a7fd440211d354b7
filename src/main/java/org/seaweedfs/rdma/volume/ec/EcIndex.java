package org.seaweedfs.rdma.volume.ec;

import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.VolumeFormatException;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An EC volume's {@code .ecx}: the {@code .idx} entries live at encode time, sorted by key (unsigned), in the
 * same 16- or 17-byte form. Looked up by binary search over the file (about log2(n) positional reads, nothing
 * loaded). SeaweedFS's older servers marked deletions in place with a tombstone size; such entries read as
 * absent, as do entries with offset 0. Thread-safe: only positional reads.
 */
public final class EcIndex implements Closeable {

    /** A live entry: offset of the record in the original {@code .dat} (bytes) and the needle's Size. */
    public record Entry(long key, long offset, int size) {
    }

    /** Sees entries in key order. */
    @FunctionalInterface
    public interface EntryConsumer {
        void accept(long key, long offset, int size) throws IOException;
    }

    private static final int ENTRIES_PER_READ = 4096;

    private final Path path;
    private final FileChannel channel;
    private final IndexFormat format;
    private final long entries;

    private EcIndex(Path path, FileChannel channel, IndexFormat format, long entries) {
        this.path = path;
        this.channel = channel;
        this.format = format;
        this.entries = entries;
    }

    /** Opens the index, checking that its length is a whole number of entries. */
    public static EcIndex open(Path ecx, IndexFormat format) throws IOException {
        FileChannel channel = FileChannel.open(ecx, StandardOpenOption.READ);
        try {
            long size = channel.size();
            if (size % format.entrySize() != 0) {
                throw new VolumeFormatException(ecx.toString(), size - size % format.entrySize(), "index length",
                        size + " bytes is not a whole number of " + format.entrySize() + "-byte entries");
            }
            return new EcIndex(ecx, channel, format, size / format.entrySize());
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    public Path path() {
        return path;
    }

    public long entryCount() {
        return entries;
    }

    /** The live entry for {@code key}, or null when absent or marked deleted. */
    public Entry find(long key) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(format.entrySize());
        long low = 0;
        long high = entries;
        while (low < high) {
            long mid = (low + high) >>> 1;
            readEntry(buf, mid);
            int order = Long.compareUnsigned(format.key(buf, 0), key);
            if (order == 0) {
                long offset = format.offset(buf, 0);
                int size = format.size(buf, 0);
                return IndexFormat.isLive(offset, size) ? new Entry(key, offset, size) : null;
            }
            if (order < 0) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return null;
    }

    /**
     * Every live entry in file order, reading in blocks; checks that the keys ascend strictly (a binary search
     * over an unsorted file would miss needles).
     */
    public void forEachLive(EntryConsumer consumer) throws IOException {
        int entrySize = format.entrySize();
        ByteBuffer block = ByteBuffer.allocate(ENTRIES_PER_READ * entrySize);
        long end = entries * entrySize;
        boolean first = true;
        long previous = 0;
        for (long at = 0; at < end; at += block.limit()) {
            block.clear().limit((int) Math.min(block.capacity(), end - at));
            fill(block, at);
            for (int p = 0; p < block.limit(); p += entrySize) {
                long key = format.key(block, p);
                if (!first && Long.compareUnsigned(key, previous) <= 0) {
                    throw new VolumeFormatException(path.toString(), at + p, "key",
                            Long.toUnsignedString(key) + " does not ascend after " + Long.toUnsignedString(previous));
                }
                first = false;
                previous = key;
                long offset = format.offset(block, p);
                int size = format.size(block, p);
                if (IndexFormat.isLive(offset, size)) {
                    consumer.accept(key, offset, size);
                }
            }
        }
    }

    private void readEntry(ByteBuffer buf, long index) throws IOException {
        buf.clear();
        fill(buf, index * format.entrySize());
    }

    private void fill(ByteBuffer buf, long position) throws IOException {
        long at = position;
        while (buf.hasRemaining()) {
            int n = channel.read(buf, at);
            if (n <= 0) {
                throw new VolumeFormatException(path.toString(), position, "index entry",
                        "file ends early (truncated while open?)");
            }
            at += n;
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
