package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.protocol.ErrorCode;
import org.seaweedfs.rdma.protocol.LookupBatchResult;
import org.seaweedfs.rdma.protocol.LookupResult;
import org.seaweedfs.rdma.protocol.ProtocolException;
import org.seaweedfs.rdma.protocol.ReadThrough;
import org.seaweedfs.rdma.protocol.ReadThroughData;
import org.seaweedfs.rdma.protocol.SyncEntries;
import org.seaweedfs.rdma.protocol.SyncEntryWriter;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NeedleHeader;
import org.seaweedfs.rdma.volume.NeedleLayout;
import org.seaweedfs.rdma.volume.NeedleMap;
import org.seaweedfs.rdma.volume.SuperBlock;
import org.seaweedfs.rdma.volume.VolumeFiles;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;

/**
 * One epoch of one served volume: the {@code .dat} and {@code .idx} as they were opened (the channels keep reading
 * these files even after a compaction renames new ones over the paths), the needle map, and the served segments
 * (registered mappings or UCX copies). The needle map only holds entries whose records lie inside the served part of
 * the {@code .dat}, so every position it hands out is readable remotely. Confined to the agent's context.
 */
final class ServedVolume implements SyncedIndex, Closeable {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ServedVolume.class);
    /** How many entries at the end of an .idx are checked against the .dat when the volume is opened. */
    static final int TAIL_ENTRIES_CHECKED = 10;

    private final VolumeFiles files;
    private final long epoch;
    private final FileChannel dat;
    private final FileChannel idx;
    private final Object datKey;
    private final Object idxKey;
    private final SuperBlock superBlock;
    private final NeedleMap map = new NeedleMap();
    private final IndexTail tail;
    private final DatSegments segments;
    private long applied;
    private boolean heldBack;
    private int stalledPasses;
    private long skippedEntries;

    private ServedVolume(VolumeFiles files, long epoch, FileChannel dat, FileChannel idx, Object datKey, Object idxKey,
                         SuperBlock superBlock, IndexFormat format, long segmentBytes, SegmentMemory memory) {
        this.files = files;
        this.epoch = epoch;
        this.dat = dat;
        this.idx = idx;
        this.datKey = datKey;
        this.idxKey = idxKey;
        this.superBlock = superBlock;
        this.tail = new IndexTail(format);
        this.segments = new DatSegments(dat, files.volumeId(), files.dat().toString(), segmentBytes, memory);
    }

    /**
     * Opens both files and reads the super block; nothing is mapped or applied yet ({@link #segments()} grows the
     * mapping, {@link #follow} applies the index).
     *
     * @throws IOException when a file cannot be opened, is replaced while opening, or is not a volume
     */
    static ServedVolume open(VolumeFiles files, IndexFormat format, long epoch, long segmentBytes, SegmentMemory memory)
            throws IOException {
        if (!files.hasIndex()) {
            throw new IOException(files.dat() + " has no .idx beside it");
        }
        Object datBefore = fileKey(files.dat());
        Object idxBefore = fileKey(files.idx());
        FileChannel dat = FileChannel.open(files.dat(), StandardOpenOption.READ);
        FileChannel idx = null;
        try {
            idx = FileChannel.open(files.idx(), StandardOpenOption.READ);
            if (!Objects.equals(datBefore, fileKey(files.dat())) || !Objects.equals(idxBefore, fileKey(files.idx()))) {
                throw new IOException(files.name() + " was replaced while it was being opened; trying again later");
            }
            SuperBlock superBlock = SuperBlock.read(dat, files.dat().toString());
            return new ServedVolume(files, epoch, dat, idx, datBefore, idxBefore, superBlock, format, segmentBytes, memory);
        } catch (IOException | RuntimeException e) {
            dat.close();
            if (idx != null) {
                idx.close();
            }
            throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
    }

    /** The file's identity (inode on Unix), or null where the platform has none. */
    static Object fileKey(Path path) throws IOException {
        return Files.readAttributes(path, BasicFileAttributes.class).fileKey();
    }

    @Override
    public long volumeId() {
        return files.volumeId();
    }

    VolumeFiles files() {
        return files;
    }

    String name() {
        return files.name();
    }

    @Override
    public long epoch() {
        return epoch;
    }

    int version() {
        return superBlock.version();
    }

    SuperBlock superBlock() {
        return superBlock;
    }

    Object datKey() {
        return datKey;
    }

    Object idxKey() {
        return idxKey;
    }

    DatSegments segments() {
        return segments;
    }

    int needles() {
        return map.size();
    }

    /** Bytes of the .idx applied: the end of what sidecars can sync. */
    @Override
    public long appliedPosition() {
        return applied;
    }

    @Override
    public int idxEntryBytes() {
        return tail.format().entrySize();
    }

    /** Size of the opened .dat now (grows while the volume server appends). */
    long datSize() throws IOException {
        return dat.size();
    }

    /** Whether the .idx holds a complete entry past the applied position. */
    boolean indexGrew() throws IOException {
        return tail.completeEnd(idx.size()) > applied;
    }

    /**
     * How many {@link #follow} calls in a row stopped at the same entry because its record is not mapped: a few while
     * the volume server is writing, forever when the entry points past the end of the file.
     */
    int stalledPasses() {
        return stalledPasses;
    }

    /**
     * Applies the complete {@code .idx} entries past the applied position, stopping before the first live entry whose
     * record is not inside the mapped part of the {@code .dat} (it waits for the next growth); a trailing partial
     * entry waits as well. Entries applied are appended as stored to {@code collect} (may be null).
     *
     * @return the position before this call
     */
    long follow(SyncEntryWriter collect) throws IOException {
        long from = applied;
        long end = tail.completeEnd(idx.size());
        if (end < from) {
            throw new IOException(files.idx() + " shrank below the applied position " + from + " (replaced?)");
        }
        long mappedEnd = segments.mappedEnd();
        int version = version();
        heldBack = false;
        // SeaweedFS checks the last entries of an .idx against the .dat when it loads a volume (a crash mid-append
        // leaves a torn entry there): check those, and every entry appended while following.
        long checkFrom = from > 0 ? from : Math.max(0, end - (long) TAIL_ENTRIES_CHECKED * idxEntryBytes());
        long[] at = {from};
        applied = tail.read(idx, from, end, (key, offset, size) -> {
            long position = at[0];
            if (IndexFormat.isLive(offset, size) && offset > mappedEnd - NeedleLayout.recordLength(size, version)) {
                heldBack = true;
                return false;
            }
            at[0] += idxEntryBytes();
            if (position >= checkFrom && IndexFormat.isLive(offset, size) && !recordMatches(key, offset, size)) {
                skippedEntries++;
                LOG.warn("Volume " + name() + ": the .idx entry at byte " + position + " (key " + Long.toHexString(key)
                        + ", offset " + offset + ", size " + size + ") does not match the .dat record there (torn or"
                        + " garbage entry); not served");
                return true;
            }
            map.apply(key, offset, size);
            if (collect != null) {
                collect.append(key, offset, size);
            }
            return true;
        }, files.idx().toString());
        stalledPasses = heldBack && applied == from ? stalledPasses + 1 : 0;
        return from;
    }

    /** Whether the .dat holds the header of needle {@code key} with body length {@code size} at {@code offset}. */
    private boolean recordMatches(long key, long offset, int size) {
        ByteBuffer header = ByteBuffer.allocate(NeedleLayout.HEADER_SIZE);
        try {
            long at = offset;
            while (header.hasRemaining()) {
                int n = dat.read(header, at);
                if (n <= 0) {
                    return false;
                }
                at += n;
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        NeedleHeader h = NeedleHeader.parse(header, 0, files.dat().toString(), offset);
        return h.key() == key && h.size() == (size & 0xFFFF_FFFFL);
    }

    /** .idx entries not applied because the .dat record they point at is not theirs. */
    long skippedEntries() {
        return skippedEntries;
    }

    /** One SyncEntries of the applied .idx range from {@code from}: at most {@code maxEntries}, {@code more} when cut. */
    @Override
    public SyncEntries syncFrame(long requestId, long from, int maxEntries) throws IOException {
        long to = Math.min(applied, from + (long) maxEntries * idxEntryBytes());
        SyncEntryWriter writer = new SyncEntryWriter(maxEntries);
        tail.read(idx, from, to, writer::append, files.idx().toString());
        return writer.toMessage(requestId, volumeId(), epoch, from, to, to < applied);
    }

    VolumeInfo describe() {
        return new VolumeInfo(volumeId(), files.collection(), version(), epoch, segments.mappedEnd(), applied,
                segments.describe());
    }

    /** Where the needle's record is (Size 0 included: an empty file); not found when missing, deleted or the cookie differs. */
    LookupResult lookup(long requestId, long key, int cookie) {
        int slot = liveSlot(requestId, key, cookie);
        if (slot < 0) {
            return LookupResult.notFound(requestId, epoch);
        }
        int size = map.sizeAt(slot);
        return new LookupResult(requestId, true, epoch, map.offsetAt(slot), NeedleLayout.recordLength(size, version()), size);
    }

    /** Writes result {@code i} of a batch lookup, read straight from the needle map (nothing copied). */
    void lookupInto(byte[] results, int i, long requestId, long key, int cookie) {
        int slot = liveSlot(requestId, key, cookie);
        if (slot < 0) {
            LookupBatchResult.put(results, i, LookupBatchResult.NOT_FOUND, epoch, 0, 0);
        } else {
            LookupBatchResult.put(results, i, LookupBatchResult.FOUND, epoch, map.offsetAt(slot), map.sizeAt(slot));
        }
    }

    /** The map slot of a live needle (Size 0 included) whose record carries {@code cookie}; -1 when there is none. */
    private int liveSlot(long requestId, long key, int cookie) {
        int slot = map.slotOf(key);
        if (slot < 0 || header(requestId, key, map.offsetAt(slot)).cookie() != cookie) {
            return -1;
        }
        return slot;
    }

    /** Copies bytes of a needle's record out of the served segments (the degraded path). */
    ReadThroughData readThrough(ReadThrough request) {
        long requestId = request.requestId();
        int slot = map.slotOf(request.key());
        if (slot < 0
                || header(requestId, request.key(), map.offsetAt(slot)).cookie() != request.cookie()) {
            throw new ProtocolException(ErrorCode.NOT_FOUND, requestId, "needle " + Long.toHexString(request.key())
                    + " of volume " + volumeId() + " is missing, deleted or has another cookie");
        }
        long recordSize = NeedleLayout.recordLength(map.sizeAt(slot), version());
        if (request.offset() >= recordSize) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, requestId, "ReadThrough.offset: " + request.offset()
                    + " is past the end of the " + recordSize + "-byte record");
        }
        byte[] bytes = new byte[(int) Math.min(request.length(), recordSize - request.offset())];
        segments.copy(map.offsetAt(slot) + request.offset(), bytes, 0, bytes.length);
        return new ReadThroughData(requestId, epoch, request.offset(), bytes);
    }

    private NeedleHeader header(long requestId, long key, long offset) {
        byte[] head = new byte[NeedleLayout.HEADER_SIZE];
        segments.copy(offset, head, 0, head.length);
        NeedleHeader header = NeedleHeader.parse(ByteBuffer.wrap(head), 0, files.dat().toString(), offset);
        if (header.key() != key) {
            throw new ProtocolException(ErrorCode.INTERNAL, requestId, files.dat() + " at offset " + offset
                    + ": record holds needle " + Long.toHexString(header.key()) + ", the index says "
                    + Long.toHexString(key));
        }
        return header;
    }

    @Override
    public void close() throws IOException {
        try (dat; idx) {
            // closes both, even when one fails
        }
    }

    @Override
    public String toString() {
        return "volume " + name() + " epoch " + Long.toUnsignedString(epoch);
    }
}
