package org.seaweedfs.rdma.volume;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes version 2/3 volumes SeaweedFS can read: appends needle records to the {@code .dat}, then their entry
 * to the {@code .idx} (in that order, so a concurrent reader that follows the index never sees an entry
 * before its record). Deletion appends a Size-0 tombstone record and an entry with size 0xFFFFFFFF.
 * Writes go straight to the channels (no user-space buffering), so other processes see each needle as soon
 * as its call returns. One writer per volume; not thread-safe.
 */
public final class VolumeWriter implements Closeable {

    private final FileChannel dat;
    private final IndexWriter index;
    private final SuperBlock superBlock;
    private final String source;
    private long end;

    private VolumeWriter(FileChannel dat, IndexWriter index, SuperBlock superBlock, String source, long end) {
        this.dat = dat;
        this.index = index;
        this.superBlock = superBlock;
        this.source = source;
        this.end = end;
    }

    /** Creates a new volume; fails if the {@code .dat} exists. */
    public static VolumeWriter create(Path dat, Path idx, SuperBlock superBlock,
            IndexFormat format) throws IOException {
        if (superBlock.version() == SuperBlock.VERSION_1) {
            throw new IllegalArgumentException("the writer writes version 2 or 3 volumes, not version 1");
        }
        FileChannel ch =
                FileChannel.open(dat, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            ch.write(ByteBuffer.wrap(superBlock.toBytes()), 0);
            return new VolumeWriter(ch, new IndexWriter(idx, format), superBlock, dat.toString(), superBlock.length());
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** Creates {@code <dir>/<vid>.dat} (or {@code <collection>_<vid>.dat}) and its {@code .idx}. */
    public static VolumeWriter create(Path dir, String collection, long volumeId, int version, IndexFormat format)
            throws IOException {
        String base = (collection == null || collection.isEmpty() ? "" : collection + "_") + volumeId;
        return create(dir.resolve(base + ".dat"), dir.resolve(base + ".idx"), SuperBlock.of(version), format);
    }

    /** Opens an existing volume for appending (the super block is validated; a ragged end is padded to 8). */
    public static VolumeWriter append(Path dat, Path idx, IndexFormat format) throws IOException {
        FileChannel ch = FileChannel.open(dat, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            SuperBlock superBlock = SuperBlock.read(ch, dat.toString());
            if (superBlock.version() == SuperBlock.VERSION_1) {
                throw new VolumeFormatException(dat.toString(), 0, "version",
                        "the writer appends to version 2 or 3 volumes only");
            }
            long size = ch.size();
            long end = (size + NeedleLayout.ALIGNMENT - 1) / NeedleLayout.ALIGNMENT * NeedleLayout.ALIGNMENT;
            return new VolumeWriter(ch, new IndexWriter(idx, format), superBlock, dat.toString(), end);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** Appends a needle; returns its record's offset in bytes. */
    public long append(NewNeedle needle) throws IOException {
        long offset = writeRecord(needle);
        index.append(needle.key(), offset, (int) NeedleEncoder.size(needle, superBlock.version()));
        return offset;
    }

    /**
     * Deletes a needle: a tombstone record, then an index entry with size 0xFFFFFFFF. Returns the tombstone's offset.
     */
    public long delete(long key, int cookie, long appendAtNs) throws IOException {
        long offset = writeRecord(NewNeedle.builder(key, cookie, new byte[0]).appendAtNs(appendAtNs).build());
        index.append(key, offset, IndexFormat.TOMBSTONE_SIZE);
        return offset;
    }

    private long writeRecord(NewNeedle needle) throws IOException {
        ByteBuffer record = NeedleEncoder.encode(needle, superBlock.version());
        long offset = end;
        if (offset > index.format().maxOffset()) {
            throw new VolumeFormatException(source, offset, "offset",
                    "volume is full for " + index.format() + " indexes (max offset " + index.format().maxOffset()
                            + ")");
        }
        long at = offset;
        while (record.hasRemaining()) {
            at += dat.write(record, at);
        }
        end = at;
        return offset;
    }

    public SuperBlock superBlock() {
        return superBlock;
    }

    /** Where the next record will go. */
    public long datSize() {
        return end;
    }

    /** Flushes both files to the device. */
    public void force() throws IOException {
        dat.force(false);
        index.force();
    }

    @Override
    public void close() throws IOException {
        try (dat; index) {
            // closes both, even when one fails
        }
    }
}
