package org.seaweedfs.rdma.volume;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Reads needle records from a {@code .dat} channel with constant memory: the data is streamed through the
 * checksum in chunks and never held whole. One instance reuses its buffers, so it is not thread-safe.
 */
public final class ChannelNeedleReader {

    public static final int DEFAULT_CHUNK = 1 << 20;

    private final ByteBuffer head = ByteBuffer.allocate(NeedleLayout.HEADER_SIZE + NeedleLayout.DATA_SIZE_FIELD);
    private final ByteBuffer tail =
            ByteBuffer.allocate(NeedleLayout.MAX_META_LENGTH + NeedleLayout.tailLength(SuperBlock.VERSION_3));
    private final ByteBuffer chunk;
    private final NeedleChecksum checksum = new NeedleChecksum();

    public ChannelNeedleReader() {
        this(DEFAULT_CHUNK);
    }

    public ChannelNeedleReader(int chunkSize) {
        if (chunkSize <= 0) {
            throw new IllegalArgumentException("chunk size must be positive: " + chunkSize);
        }
        chunk = ByteBuffer.allocateDirect(chunkSize);
    }

    /** Reads only the 16-byte header at {@code offset}, checking that the record fits before {@code fileSize}. */
    public NeedleHeader readHeader(FileChannel dat, long offset, long fileSize, int version,
            String source) throws IOException {
        NeedleHeader header = readRawHeader(dat, offset, source);
        header.checkFits(fileSize - offset, version, source, offset);
        return header;
    }

    /** Reads the 16-byte header at {@code offset} without judging its Size (to name a record that is broken). */
    public NeedleHeader readRawHeader(FileChannel dat, long offset, String source) throws IOException {
        head.clear().limit(NeedleLayout.HEADER_SIZE);
        PositionalRead.fully(dat, head, offset, source, "needle header");
        return NeedleHeader.parse(head, 0, source, offset);
    }

    /** Reads, checksums and parses the whole record at {@code offset}. */
    public NeedleSummary read(FileChannel dat, long offset, long fileSize, int version,
            String source) throws IOException {
        NeedleHeader header = readHeader(dat, offset, fileSize, version, source);
        long size = header.size();
        long dataLength = size;
        if (version != SuperBlock.VERSION_1 && size > 0) {
            head.clear().limit(NeedleLayout.DATA_SIZE_FIELD);
            PositionalRead.fully(dat, head, offset + NeedleLayout.HEADER_SIZE, source, "dataSize");
            dataLength = head.getInt(0) & 0xFFFF_FFFFL;
            NeedleLayout.checkDataSize(dataLength, size, source, offset);
        }
        long dataStart = offset + NeedleLayout.dataStart(size, version);
        int crc = streamCrc(dat, dataStart, dataLength, source, offset);
        int metaLength = (int) NeedleLayout.metaLength(size, version, dataLength);
        tail.clear().limit(metaLength + NeedleLayout.tailLength(version));
        PositionalRead.fully(dat, tail, dataStart + dataLength, source, "needle tail");
        NeedleTail parsed = NeedleTail.parse(tail, 0, metaLength, version, source, offset);
        return new NeedleSummary(offset, version, header, dataLength, parsed, crc,
                NeedleChecksum.judge(crc, parsed.checksum(), size));
    }

    private int streamCrc(FileChannel dat, long from, long length, String source,
            long recordOffset) throws IOException {
        checksum.reset();
        long done = 0;
        while (done < length) {
            chunk.clear().limit((int) Math.min(chunk.capacity(), length - done));
            PositionalRead.fully(dat, chunk, from + done, source, "needle data (record at " + recordOffset + ")");
            chunk.flip();
            checksum.update(chunk);
            done += chunk.limit();
        }
        return checksum.value();
    }
}
