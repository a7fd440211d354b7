package org.seaweedfs.rdma.volume;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.function.LongConsumer;

/**
 * Rebuilds a needle map from a {@code .dat} without its index by walking the record headers front to back
 * (as {@code weed fix} does): a record with Size > 0 sets its key, a Size-0 record (a deletion's tombstone)
 * deletes it. Reads 16 bytes per record; every step advances by at least 24 bytes, so it always ends.
 */
public final class DatScan {

    private static final long PROGRESS_EVERY = 64L << 20;

    private final ChannelNeedleReader reader = new ChannelNeedleReader(NeedleLayout.HEADER_SIZE);

    /**
     * Applies every record's header to {@code map} and returns the offset where the records end (the file
     * size). {@code progress} (may be null) receives the offset reached now and then.
     *
     * @throws VolumeFormatException at the first record that is truncated or claims more than the file
     *                               holds; the map keeps what came before it
     */
    public long rebuild(FileChannel dat, SuperBlock superBlock, NeedleMap map, String source, LongConsumer progress)
            throws IOException {
        long fileSize = dat.size();
        long offset = superBlock.length();
        long reported = 0;
        while (offset < fileSize) {
            NeedleHeader header = reader.readHeader(dat, offset, fileSize, superBlock.version(), source);
            if (header.size() > 0 && header.size() <= Integer.MAX_VALUE) {
                map.put(header.key(), offset, (int) header.size());
            } else {
                map.remove(header.key());
            }
            offset += NeedleLayout.recordLength(header.size(), superBlock.version());
            if (progress != null && offset - reported >= PROGRESS_EVERY) {
                progress.accept(offset);
                reported = offset;
            }
        }
        return offset;
    }
}
