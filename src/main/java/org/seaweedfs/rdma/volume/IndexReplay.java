package org.seaweedfs.rdma.volume;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Applies {@code .idx} entries to a {@link NeedleMap}, from any entry boundary to the last complete entry:
 * the way to load an index and to follow one that the volume server keeps appending to. A trailing partial
 * entry (a write in progress, or a torn tail) is left for the next call. Not thread-safe (nor is the map).
 */
public final class IndexReplay {

    private static final int ENTRIES_PER_READ = 4096;

    private final IndexFormat format;
    private final ByteBuffer block;

    public IndexReplay(IndexFormat format) {
        this.format = format;
        this.block = ByteBuffer.allocate(ENTRIES_PER_READ * format.entrySize());
    }

    public IndexFormat format() {
        return format;
    }

    /** Replays a whole index file into {@code map}. */
    public IndexProgress load(Path idx, NeedleMap map) throws IOException {
        try (FileChannel ch = FileChannel.open(idx, StandardOpenOption.READ)) {
            return apply(ch, 0, map, null, idx.toString());
        }
    }

    /**
     * Applies the complete entries between {@code from} and the channel's current end. {@code applied}
     * (may be null) sees each entry as it is applied, deletions with size {@link NeedleMap#DELETED}, so a
     * follower can forward the increment.
     *
     * @throws VolumeFormatException when the file is now shorter than {@code from} (it was replaced, e.g. by
     *                               compaction: reload from 0)
     */
    public IndexProgress apply(FileChannel idx, long from, NeedleMap map, NeedleEntryConsumer applied, String source)
            throws IOException {
        int entrySize = format.entrySize();
        if (from < 0 || from % entrySize != 0) {
            throw new IllegalArgumentException(source + ": replay must start at an entry boundary (multiple of "
                    + entrySize + "), not " + from);
        }
        long fileSize = idx.size();
        if (fileSize < from) {
            throw new VolumeFormatException(source, from, "index length",
                    "file shrank to " + fileSize + " bytes (replaced or compacted?)");
        }
        long end = from + (fileSize - from) / entrySize * entrySize;
        long entries = 0;
        for (long at = from; at < end; ) {
            block.clear().limit((int) Math.min(block.capacity(), end - at));
            PositionalRead.fully(idx, block, at, source, "index entries");
            for (int p = 0; p < block.limit(); p += entrySize) {
                long key = format.key(block, p);
                long offset = format.offset(block, p);
                boolean live = map.apply(key, offset, format.size(block, p));
                if (applied != null) {
                    applied.accept(key, offset, live ? format.size(block, p) : NeedleMap.DELETED);
                }
            }
            entries += block.limit() / entrySize;
            at += block.limit();
        }
        return new IndexProgress(end, entries);
    }
}
