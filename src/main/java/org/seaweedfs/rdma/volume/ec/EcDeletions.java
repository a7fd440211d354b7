package org.seaweedfs.rdma.volume.ec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Set;

/**
 * An EC volume's deletion journal {@code .ecj}: 8-byte big-endian needle ids appended as needles are deleted
 * after encoding. {@link #follow} reads what was appended since the last call (a trailing partial id waits for the
 * next call); a journal that shrank was replaced, and is read again from the start. Not thread-safe: one owner
 * follows it, others read {@link #snapshot copies}.
 */
public final class EcDeletions {

    public static final int ID_SIZE = 8;
    /** A journal can never name more ids than this (64 Mi ids = 512 MiB of journal); past it, follow fails. */
    public static final long MAX_IDS = 64L << 20;
    private static final int IDS_PER_READ = 4096;

    private final Path path;
    private final Set<Long> deleted = new HashSet<>();
    private long position;

    public EcDeletions(Path ecj) {
        this.path = ecj;
    }

    public Path path() {
        return path;
    }

    /**
     * Applies the ids appended since the last call; a missing journal counts as empty. Returns the number of ids
     * newly read.
     *
     * @throws IOException when the journal names more than {@link #MAX_IDS} ids
     */
    public long follow() throws IOException {
        long size;
        try {
            size = Files.size(path);
        } catch (NoSuchFileException e) {
            size = 0;
        }
        if (size < position) {
            deleted.clear();
            position = 0;
        }
        long end = size - size % ID_SIZE;
        if (end / ID_SIZE > MAX_IDS) {
            throw new IOException(path + ": " + end / ID_SIZE + " deleted ids, more than the " + MAX_IDS + " allowed");
        }
        if (end == position) {
            return 0;
        }
        long read = 0;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            ByteBuffer block = ByteBuffer.allocate(IDS_PER_READ * ID_SIZE);
            while (position < end) {
                block.clear().limit((int) Math.min(block.capacity(), end - position));
                while (block.hasRemaining()) {
                    if (ch.read(block, position + block.position()) <= 0) {
                        throw new IOException(path + ": journal shrank while being read at " + position);
                    }
                }
                block.flip();
                while (block.hasRemaining()) {
                    deleted.add(block.getLong());
                    read++;
                }
                position += block.limit();
            }
        }
        return read;
    }

    public boolean isDeleted(long key) {
        return deleted.contains(key);
    }

    public int count() {
        return deleted.size();
    }

    /** Bytes of the journal applied so far. */
    public long position() {
        return position;
    }

    /** An immutable copy of the deleted ids. */
    public Set<Long> snapshot() {
        return Set.copyOf(deleted);
    }
}
