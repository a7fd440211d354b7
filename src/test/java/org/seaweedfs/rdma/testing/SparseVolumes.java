package org.seaweedfs.rdma.testing;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.VolumeWriter;

/**
 * Volumes of several GiB that take a few KiB of disk: before a needle is appended, the {@code .dat} is extended with
 * a hole (never written, read as zeros), so a record lands anywhere, e.g. across the agent's 1 GiB segment boundaries.
 * Records and index entries are written by the project's writer in SeaweedFS's format; no index entry points into a
 * hole.
 */
public final class SparseVolumes {

    public static final long GIB = 1L << 30;

    private SparseVolumes() {
    }

    /**
     * Appends {@code needle} to the volume at {@code at} (rounded up to the records' 8-byte alignment), past a hole
     * from the current end; returns the record's offset.
     */
    public static long appendAt(Path dat, Path idx, IndexFormat format, long at, NewNeedle needle)
            throws IOException {
        try (RandomAccessFile file = new RandomAccessFile(dat.toFile(), "rw")) {
            if (file.length() < at) {
                file.setLength(at);
            }
        }
        try (VolumeWriter writer = VolumeWriter.append(dat, idx, format)) {
            return writer.append(needle);
        }
    }

    /** The file's bytes {@code [offset, offset + length)}, read without the rest. */
    public static byte[] read(Path file, long offset, int length) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(length);
        try (FileChannel channel = FileChannel.open(file)) {
            while (bytes.hasRemaining()) {
                if (channel.read(bytes, offset + bytes.position()) < 0) {
                    throw new IOException(file + " ends before " + (offset + length));
                }
            }
        }
        return bytes.array();
    }
}
