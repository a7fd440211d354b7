package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.protocol.ErrorCode;
import org.seaweedfs.rdma.protocol.LookupBatchResult;
import org.seaweedfs.rdma.protocol.LookupResult;
import org.seaweedfs.rdma.protocol.ProtocolException;
import org.seaweedfs.rdma.protocol.ReadThrough;
import org.seaweedfs.rdma.protocol.ReadThroughData;
import org.seaweedfs.rdma.protocol.ServedFile;
import org.seaweedfs.rdma.protocol.SyncEntries;
import org.seaweedfs.rdma.protocol.SyncEntryWriter;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.ucx.SameHost;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NeedleHeader;
import org.seaweedfs.rdma.volume.NeedleLayout;
import org.seaweedfs.rdma.volume.NeedleIndex;
import org.seaweedfs.rdma.volume.NeedleRecords;
import org.seaweedfs.rdma.volume.PositionalRead;
import org.seaweedfs.rdma.volume.SortedNeedleIndex;
import org.seaweedfs.rdma.volume.SuperBlock;
import org.seaweedfs.rdma.volume.VolumeFiles;
import org.seaweedfs.rdma.volume.VolumeFormatException;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * One epoch of one served volume: the {@code .dat} and {@code .idx} as they were opened (the channels keep reading
 * these files even after a compaction renames new ones over the paths), the needle index, and the served segments
 * (registered mappings or UCX copies). The needle index only holds entries whose records lie inside the served part
 * of the {@code .dat}, so every position it hands out is readable remotely. Confined to the agent's context (the
 * index's one writer; {@link NeedleIndex} would also take lookups from other threads).
 *
 * <p>The index is loaded on the first {@link #follow}: from its file ({@code <volume>.rdx}, see {@link #indexFile})
 * when that is intact and current, replaying only the {@code .idx} entries written since; otherwise built from the
 * whole {@code .idx} and written. A file is current when it was made from this {@code .idx} (same entry width,
 * the {@code .idx} at least as long as what the file covers and with the same first and last 4 KiB up to there), of
 * this {@code .dat} (same compaction revision, every offset inside it).
 */
final class ServedVolume implements SyncedIndex, Closeable {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ServedVolume.class);
    /** How many entries at the end of an .idx are checked against the .dat when the volume is opened. */
    static final int TAIL_ENTRIES_CHECKED = 10;
    /** Bytes at each end of the covered .idx that an index file's fingerprint checksums. */
    private static final int FINGERPRINT_BYTES = 4096;
    /** The index files' extension. */
    static final String INDEX_EXTENSION = ".rdx";

    private final VolumeFiles files;
    private final long epoch;
    private final FileChannel dat;
    private final FileChannel idx;
    private final Object datKey;
    private final ServedFile datFile; // null when same-host readers cannot be told
    private final Object idxKey;
    private final SuperBlock superBlock;
    private final Path indexDir;
    private final long minOverlay;
    private final NeedleIndex.Hit hit = new NeedleIndex.Hit();
    private NeedleIndex index;
    private final IndexTail tail;
    private final DatSegments segments;
    private final SegmentMemory memory;
    /** The index as sidecars read it one-sidedly: null until exposed, and between a merge and the next copy. */
    private ExposedIndex exposed;
    private boolean exposing;
    private final java.util.List<ServedSegment> withdrawnIndexes = new java.util.ArrayList<>();
    private long applied;
    private boolean heldBack;
    private int stalledPasses;
    private long skippedEntries;

    private ServedVolume(VolumeFiles files, long epoch, FileChannel dat, FileChannel idx, Object datKey,
                         ServedFile datFile, Object idxKey, SuperBlock superBlock, IndexFormat format,
                         SegmentMemory memory, Path indexDir, long minOverlay) {
        this.files = files;
        this.indexDir = indexDir;
        this.minOverlay = minOverlay;
        this.epoch = epoch;
        this.dat = dat;
        this.idx = idx;
        this.datKey = datKey;
        this.datFile = datFile;
        this.idxKey = idxKey;
        this.superBlock = superBlock;
        this.tail = new IndexTail(format);
        this.segments = new DatSegments(dat, files.volumeId(), files.dat().toString(), memory);
        this.memory = memory;
    }

    /**
     * Opens both files and reads the super block; nothing is mapped or applied yet ({@link #segments()} grows the
     * mapping, {@link #follow} applies the index). {@code indexDir} (null: beside the volume) holds the index file;
     * the index merges its changes into a new file past {@code minOverlay} changed needles (or 1/32 of the volume).
     *
     * @throws IOException when a file cannot be opened, is replaced while opening, or is not a volume
     */
    static ServedVolume open(VolumeFiles files, IndexFormat format, long epoch, SegmentMemory memory, Path indexDir,
                             long minOverlay) throws IOException {
        if (!files.hasIndex()) {
            throw new IOException(files.dat() + " has no .idx beside it");
        }
        Object datBefore = fileKey(files.dat());
        ServedFile datFile = servedFile(files.dat()); // between two identity checks: the file opened
        Object idxBefore = fileKey(files.idx());
        FileChannel dat = FileChannel.open(files.dat(), StandardOpenOption.READ);
        FileChannel idx = null;
        try {
            idx = FileChannel.open(files.idx(), StandardOpenOption.READ);
            if (!Objects.equals(datBefore, fileKey(files.dat())) || !Objects.equals(idxBefore, fileKey(files.idx()))) {
                throw new IOException(files.name() + " was replaced while it was being opened; trying again later");
            }
            SuperBlock superBlock = SuperBlock.read(dat, files.dat().toString());
            return new ServedVolume(files, epoch, dat, idx, datBefore, datFile, idxBefore, superBlock, format,
                    memory, indexDir, minOverlay);
        } catch (IOException | RuntimeException e) {
            dat.close();
            if (idx != null) {
                idx.close();
            }
            throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
    }

    /**
     * The file as a reader on this host names it ({@link ServedFile}): its absolute path, device and inode; null
     * where this host's identity or the file's numbers are not known (not Linux), so readers get its bytes instead.
     */
    static ServedFile servedFile(Path path) throws IOException {
        String host = SameHost.id();
        if (host == null) {
            return null;
        }
        try {
            Map<String, Object> numbers = Files.readAttributes(path, "unix:dev,ino");
            return new ServedFile(host, path.toAbsolutePath().normalize().toString(),
                    ((Number) numbers.get("dev")).longValue(), ((Number) numbers.get("ino")).longValue());
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            return null;
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
        return index == null ? 0 : (int) Math.min(Integer.MAX_VALUE, index.size());
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
        if (index == null) {
            from = loadIndex(end, mappedEnd);
            applied = from;
        }
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
            try {
                if (exposed != null) {
                    exposed.withdraw(key); // before sidecars hear of the change (the push follows this pass)
                }
                index.apply(key, offset, size);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            if (collect != null) {
                collect.append(key, offset, size);
            }
            return true;
        }, files.idx().toString());
        stalledPasses = heldBack && applied == from ? stalledPasses + 1 : 0;
        if (index.mergeDue()) {
            index.merge(stamp(applied));
            if (exposed != null) {
                exposed.withdrawAll();
                withdrawnIndexes.add(exposed.memory());
                exposed = null;
            }
        }
        return from;
    }

    /**
     * Exposes the index to one-sided readers when it is not (at first, and after each merge): copies the sorted file
     * into UCX memory, withdraws every key changed since it was written, and serves it. Agent context; what a
     * failure costs is one-sided lookups (sidecars ask the agent), so it is logged and tried again next pass.
     */
    io.vertx.core.Future<Void> exposeIndex() {
        if (index == null || exposed != null || exposing) {
            return io.vertx.core.Future.succeededFuture();
        }
        exposing = true;
        SortedNeedleIndex sorted = index.sorted();
        String what = "the exposed index of volume " + name();
        return memory.allocate(what, sorted.fileBytes()).compose(copy -> {
            exposing = false;
            if (index == null || index.sorted() != sorted) { // closed or merged meanwhile: the next pass copies
                return memory.release(copy);
            }
            try {
                ExposedIndex made = ExposedIndex.copy(sorted, copy, what);
                index.forEachChangedKey(made::withdraw);
                exposed = made;
                return io.vertx.core.Future.<Void>succeededFuture();
            } catch (RuntimeException e) {
                memory.release(copy);
                return io.vertx.core.Future.<Void>failedFuture(e);
            }
        }, e -> {
            exposing = false;
            return io.vertx.core.Future.failedFuture(e);
        });
    }

    /** The index as sidecars read it now, or null. */
    ExposedIndex exposed() {
        return exposed;
    }

    /** The exposed index's handle, or null while none is exposed. */
    org.seaweedfs.rdma.protocol.IndexHandle indexHandle(long requestId) {
        return exposed == null ? null : exposed.handle(requestId, volumeId(), epoch);
    }

    /** Exposed index copies withdrawn since the last call (merges): the caller retires them. */
    java.util.List<ServedSegment> takeWithdrawnIndexes() {
        java.util.List<ServedSegment> taken = java.util.List.copyOf(withdrawnIndexes);
        withdrawnIndexes.clear();
        return taken;
    }

    /**
     * The memory of the exposed index and of copies withdrawn and not yet taken: released or retired with the volume
     * (not written to: the UCX context may be gone when the agent stops; sidecars drop it on the epoch's end).
     */
    java.util.List<ServedSegment> indexMemory() {
        java.util.List<ServedSegment> all = new java.util.ArrayList<>(takeWithdrawnIndexes());
        if (exposed != null) {
            all.add(exposed.memory());
            exposed = null;
        }
        return all;
    }

    /**
     * Maps the index file when it is intact and current, else builds it from the {@code .idx} up to {@code end}
     * (all but the last {@link #TAIL_ENTRIES_CHECKED} entries, which the caller applies with their records checked,
     * and stopping before an entry whose record is not mapped yet). Returns the {@code .idx} position it covers.
     */
    private long loadIndex(long end, long mappedEnd) throws IOException {
        Path file = indexFile();
        try {
            SortedNeedleIndex sorted = SortedNeedleIndex.open(file);
            String stale = staleness(sorted, end, mappedEnd);
            if (stale == null) {
                index = NeedleIndex.of(file, sorted, minOverlay, NeedleIndex.Readers.WRITER_THREAD);
                LOG.debug("Volume {}: mapped {} ({} needles); replaying the .idx from byte {}", name(), file,
                        sorted.count(), sorted.stamp().idxCovered());
                return sorted.stamp().idxCovered();
            }
            sorted.close();
            LOG.info("Volume " + name() + ": " + file + " is stale (" + stale + "); rebuilding it from the .idx");
        } catch (NoSuchFileException e) {
            LOG.debug("Volume {}: no index file {} yet; building it", name(), file);
        } catch (VolumeFormatException e) {
            LOG.warn("Volume " + name() + ": " + e.getMessage() + "; rebuilding it from the .idx");
        }
        long bulkEnd = Math.max(0, end - (long) TAIL_ENTRIES_CHECKED * idxEntryBytes());
        int version = version();
        try (NeedleRecords records = new NeedleRecords(file.toAbsolutePath().getParent(), bulkEnd / idxEntryBytes())) {
            long covered = tail.read(idx, 0, bulkEnd, (key, offset, size) -> {
                if (IndexFormat.isLive(offset, size) && offset > mappedEnd - NeedleLayout.recordLength(size, version)) {
                    return false; // the caller holds it back
                }
                records.add(key, offset / NeedleLayout.ALIGNMENT, size);
                return true;
            }, files.idx().toString());
            index = NeedleIndex.build(file, records, stamp(covered), minOverlay, NeedleIndex.Readers.WRITER_THREAD);
            return covered;
        }
    }

    /** Why an intact index file does not describe this epoch's files, or null when it does. */
    private String staleness(SortedNeedleIndex sorted, long end, long mappedEnd) throws IOException {
        SortedNeedleIndex.Stamp had = sorted.stamp();
        if (had.idxEntryBytes() != idxEntryBytes()) {
            return "made from " + had.idxEntryBytes() + "-byte .idx entries, not " + idxEntryBytes();
        }
        if (had.compactionRevision() != superBlock.compactionRevision()) {
            return "made at compaction revision " + had.compactionRevision() + ", the .dat is at "
                    + superBlock.compactionRevision();
        }
        if (had.idxCovered() > end || had.idxCovered() % idxEntryBytes() != 0) {
            return "it covers " + had.idxCovered() + " bytes of .idx, which has " + end;
        }
        if (had.idxTailCrc() != fingerprint(had.idxCovered())) {
            return "the .idx it covers was rewritten";
        }
        if (sorted.count() > 0 && sorted.maxOffset() >= mappedEnd) {
            return "it holds offset " + sorted.maxOffset() + ", past the " + mappedEnd + " bytes of the .dat";
        }
        return null;
    }

    private SortedNeedleIndex.Stamp stamp(long covered) throws IOException {
        return new SortedNeedleIndex.Stamp(covered, fingerprint(covered), superBlock.compactionRevision(),
                idxEntryBytes());
    }

    /** CRC32C of the first and last {@link #FINGERPRINT_BYTES} of the .idx up to {@code covered}. */
    private int fingerprint(long covered) throws IOException {
        CRC32C crc = new CRC32C();
        int head = (int) Math.min(FINGERPRINT_BYTES, covered);
        ByteBuffer bytes = ByteBuffer.allocate(head);
        PositionalRead.fully(idx, bytes, 0, files.idx().toString(), "index fingerprint");
        crc.update(bytes.flip());
        bytes.clear();
        PositionalRead.fully(idx, bytes, covered - head, files.idx().toString(), "index fingerprint");
        crc.update(bytes.flip());
        return (int) crc.getValue();
    }

    /**
     * The index file: {@code <indexDir>/<volume>.rdx}, or beside the {@code .dat} when no directory is configured
     * and the volume's directory is writable, else under {@code java.io.tmpdir}.
     */
    Path indexFile() {
        String name = files.name() + INDEX_EXTENSION;
        if (indexDir != null) {
            return indexDir.resolve(name);
        }
        Path beside = files.dat().toAbsolutePath().getParent();
        if (Files.isWritable(beside)) {
            return beside.resolve(name);
        }
        return Path.of(System.getProperty("java.io.tmpdir"), "seaweedfs-rdma-index").resolve(name);
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

    /**
     * One SyncEntries of the applied .idx range from {@code from}: at most {@code maxEntries}, {@code more} when cut.
     */
    @Override
    public SyncEntries syncFrame(long requestId, long from, int maxEntries) throws IOException {
        long to = Math.min(applied, from + (long) maxEntries * idxEntryBytes());
        SyncEntryWriter writer = new SyncEntryWriter(maxEntries);
        tail.read(idx, from, to, writer::append, files.idx().toString());
        return writer.toMessage(requestId, volumeId(), epoch, from, to, to < applied);
    }

    VolumeInfo describe() {
        return new VolumeInfo(volumeId(), files.collection(), version(), epoch, segments.mappedEnd(), applied,
                segments.describe(), null, datFile);
    }

    /**
     * Where the needle's record is (Size 0 included: an empty file); not found when missing, deleted or the cookie
     * differs.
     */
    LookupResult lookup(long requestId, long key, int cookie) {
        if (!live(requestId, key, cookie)) {
            missIsAnAnswer(requestId, key);
            return LookupResult.notFound(requestId, epoch);
        }
        int size = hit.size();
        return new LookupResult(requestId, true, epoch, hit.offset(), NeedleLayout.recordLength(size, version()), size);
    }

    /** Writes result {@code i} of a batch lookup, read straight from the needle map (nothing copied). */
    void lookupInto(byte[] results, int i, long requestId, long key, int cookie) {
        if (!live(requestId, key, cookie)) {
            missIsAnAnswer(requestId, key);
            LookupBatchResult.put(results, i, LookupBatchResult.NOT_FOUND, epoch, 0, 0);
        } else {
            LookupBatchResult.put(results, i, LookupBatchResult.FOUND, epoch, hit.offset(), hit.size());
        }
    }

    /**
     * A needle the map lacks is missing only when the map holds every complete .idx entry. While some wait (their
     * records lie past the end of the .dat: it was cut in place, or the volume server appended since the last poll)
     * the needle may be one of them, and its volume server serves it: UNAVAILABLE (retriable), never NOT_FOUND. In a
     * batch this fails every id of it; it lasts until the entries are applied (the .dat written again) or a reopen.
     */
    private void missIsAnAnswer(long requestId, long key) {
        long complete;
        try {
            complete = heldBack ? Long.MAX_VALUE : tail.completeEnd(idx.size());
        } catch (IOException e) {
            complete = Long.MAX_VALUE; // the .idx cannot be read now: nor can a miss be vouched for
        }
        if (complete > applied) {
            throw new ProtocolException(ErrorCode.UNAVAILABLE, requestId, "needle " + Long.toHexString(key)
                    + " of volume " + volumeId() + " may be in the .idx entries from byte " + applied
                    + " that are not applied yet (their records are not in the .dat): ask again or elsewhere");
        }
    }

    /** Whether a live needle (Size 0 included) carries {@code cookie}; its place is left in {@link #hit}. */
    private boolean live(long requestId, long key, int cookie) {
        return index != null && index.find(key, hit) && header(requestId, key, hit.offset()).cookie() == cookie;
    }

    /** Copies bytes of a needle's record out of the served segments (the degraded path). */
    ReadThroughData readThrough(ReadThrough request) {
        long requestId = request.requestId();
        if (!live(requestId, request.key(), request.cookie())) {
            missIsAnAnswer(requestId, request.key());
            throw new ProtocolException(ErrorCode.NOT_FOUND, requestId, "needle " + Long.toHexString(request.key())
                    + " of volume " + volumeId() + " is missing, deleted or has another cookie");
        }
        long recordSize = NeedleLayout.recordLength(hit.size(), version());
        if (request.offset() >= recordSize) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, requestId, "ReadThrough.offset: " + request.offset()
                    + " is past the end of the " + recordSize + "-byte record");
        }
        byte[] bytes = new byte[(int) Math.min(request.length(), recordSize - request.offset())];
        segments.copy(hit.offset() + request.offset(), bytes, 0, bytes.length);
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
            if (index != null) {
                index.close();
                index = null;
            }
        }
    }

    @Override
    public String toString() {
        return "volume " + name() + " epoch " + Long.toUnsignedString(epoch);
    }
}
