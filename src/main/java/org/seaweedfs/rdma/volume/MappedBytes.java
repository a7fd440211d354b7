package org.seaweedfs.rdma.volume;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;
import org.seaweedfs.rdma.internals.DirectBuffers;

/**
 * A file's bytes mapped into memory, addressed by long position (Java maps at most 2 GiB at a time): chunks of
 * 1 GiB, each mapped {@link #OVERLAP} bytes past its end so that any access of up to that many bytes starting in
 * a chunk is served by that one chunk. Little-endian. Scratch regions map a temporary file that is deleted at once
 * (in {@code /dev/shm} when it has room, so that scratch bytes are never written to a disk), so their memory is
 * never the Java heap nor counted as direct memory. A writable mapping's bytes are written (zeros) through the
 * channel first: a full file system then fails that write with an exception, where a store into a mapped hole
 * would kill the process with SIGBUS.
 *
 * <p>{@link #close} unmaps at once ({@link DirectBuffers}; where the JVM does not allow it, the garbage collector
 * unmaps later): no thread may touch the region from then on.
 */
public final class MappedBytes implements Closeable {

    /** Bytes every chunk maps past its end. */
    public static final int OVERLAP = 64;
    private static final int CHUNK_SHIFT = 30;
    private static final long CHUNK = 1L << CHUNK_SHIFT;
    private static final long CHUNK_MASK = CHUNK - 1;
    private static final Path SHARED_MEMORY = Path.of("/dev/shm");
    /** Room left in {@code /dev/shm} for others when scratch goes there. */
    private static final long SHARED_MEMORY_SPARE = 256L << 20;
    private static final int ZEROS = 1 << 20;
    private final ByteBuffer[] chunks;
    private final long size;
    private boolean closed;

    private MappedBytes(ByteBuffer[] chunks, long size) {
        this.chunks = chunks;
        this.size = size;
    }

    /**
     * Maps {@code size} bytes of the open channel (plus {@link #OVERLAP} bytes of slack past the end, which a
     * writable mapping grows the file by); read-only or read-write.
     */
    public static MappedBytes map(FileChannel channel, long size, boolean writable) throws IOException {
        if (size < 0) {
            throw new IllegalArgumentException("size " + size + " is negative");
        }
        int count = (int) Math.max(1, (size + CHUNK - 1) >>> CHUNK_SHIFT);
        ByteBuffer[] chunks = new ByteBuffer[count];
        FileChannel.MapMode mode = writable ? FileChannel.MapMode.READ_WRITE : FileChannel.MapMode.READ_ONLY;
        long fileSize = channel.size();
        if (writable && fileSize < size + OVERLAP) {
            allocate(channel, fileSize, size + OVERLAP);
            fileSize = size + OVERLAP;
        }
        try {
            for (int i = 0; i < count; i++) {
                long at = (long) i << CHUNK_SHIFT;
                long length = Math.min(CHUNK + OVERLAP, size + OVERLAP - at);
                if (!writable) {
                    length = Math.min(length, fileSize - at); // a read-only mapping must not pass the file's end
                }
                MappedByteBuffer chunk = channel.map(mode, at, Math.max(0, length));
                chunks[i] = chunk.order(ByteOrder.LITTLE_ENDIAN);
            }
        } catch (IOException | RuntimeException e) {
            release(chunks);
            throw e;
        }
        return new MappedBytes(chunks, size);
    }

    /** Writes zeros over [from, to) of the file, so that its blocks exist. */
    private static void allocate(FileChannel channel, long from, long to) throws IOException {
        ByteBuffer zeros = ByteBuffer.allocateDirect((int) Math.min(ZEROS, to - from));
        try {
            for (long at = from; at < to; ) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), to - at));
                at += channel.write(zeros, at);
            }
        } finally {
            release(new ByteBuffer[]{zeros});
        }
    }

    /**
     * A zeroed read-write scratch region in a temporary file, deleted before this returns: in {@code /dev/shm} when
     * it has room to spare, else in {@code dir}.
     */
    public static MappedBytes scratch(Path dir, long size) throws IOException {
        if (Files.isDirectory(SHARED_MEMORY) && Files.isWritable(SHARED_MEMORY)) {
            try {
                if (Files.getFileStore(SHARED_MEMORY).getUsableSpace() > size + SHARED_MEMORY_SPARE) {
                    return scratchIn(SHARED_MEMORY, size);
                }
            } catch (IOException e) {
                // full after all, or unusable: the directory given
            }
        }
        return scratchIn(dir, size);
    }

    private static MappedBytes scratchIn(Path dir, long size) throws IOException {
        Files.createDirectories(dir);
        Path file = Files.createTempFile(dir, ".scratch-", ".tmp");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return map(ch, size, true);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** Bytes addressable (the slack past it excluded). */
    public long size() {
        return size;
    }

    public long getLong(long at) {
        return chunks[(int) (at >>> CHUNK_SHIFT)].getLong((int) (at & CHUNK_MASK));
    }

    public void putLong(long at, long value) {
        chunks[(int) (at >>> CHUNK_SHIFT)].putLong((int) (at & CHUNK_MASK), value);
    }

    public int getInt(long at) {
        return chunks[(int) (at >>> CHUNK_SHIFT)].getInt((int) (at & CHUNK_MASK));
    }

    public void putInt(long at, int value) {
        chunks[(int) (at >>> CHUNK_SHIFT)].putInt((int) (at & CHUNK_MASK), value);
    }

    /** Copies {@code length} bytes from {@code at} into {@code into} (from its position on; advances it). */
    public void get(long at, ByteBuffer into, int length) {
        for (int done = 0; done < length; ) {
            long p = at + done;
            ByteBuffer chunk = chunks[(int) (p >>> CHUNK_SHIFT)];
            int from = (int) (p & CHUNK_MASK);
            int n = (int) Math.min(length - done, CHUNK - from);
            into.put(chunk.duplicate().position(from).limit(from + n));
            done += n;
        }
    }

    /** CRC32C of the bytes [from, to). */
    public int crc(long from, long to) {
        CRC32C crc = new CRC32C();
        for (long p = from; p < to; ) {
            ByteBuffer chunk = chunks[(int) (p >>> CHUNK_SHIFT)];
            int start = (int) (p & CHUNK_MASK);
            int n = (int) Math.min(to - p, CHUNK - start);
            crc.update(chunk.duplicate().position(start).limit(start + n));
            p += n;
        }
        return (int) crc.getValue();
    }

    /** Unmaps now. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            release(chunks);
        }
    }

    private static void release(ByteBuffer[] chunks) {
        for (ByteBuffer chunk : chunks) {
            if (chunk != null && !DirectBuffers.release(chunk)) {
                return; // the garbage collector unmaps them
            }
        }
    }
}
