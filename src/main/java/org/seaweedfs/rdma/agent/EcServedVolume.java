package org.seaweedfs.rdma.agent;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.seaweedfs.rdma.protocol.EcInfo;
import org.seaweedfs.rdma.protocol.EcShard;
import org.seaweedfs.rdma.protocol.LookupBatchResult;
import org.seaweedfs.rdma.protocol.LookupResult;
import org.seaweedfs.rdma.protocol.SyncEntries;
import org.seaweedfs.rdma.protocol.SyncEntryWriter;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NeedleLayout;
import org.seaweedfs.rdma.volume.ec.EcChecksums;
import org.seaweedfs.rdma.volume.ec.EcFileSet;
import org.seaweedfs.rdma.volume.ec.EcIndex;
import org.seaweedfs.rdma.volume.ec.EcLayout;
import org.seaweedfs.rdma.volume.ec.EcVolume;
import org.seaweedfs.rdma.volume.ec.EcVolumeInfo;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.concurrent.Callable;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * One epoch of an erasure-coded volume this agent holds shards of: the {@code .ecx} as opened, the {@code .ecj}
 * deletions read so far (in journal order), and each present {@code .ecNN} (in whichever of the agent's directories
 * holds it, see {@link EcFileSet}) served as segments exactly like a {@code .dat} ({@link DatSegments}: mapped or
 * copied, registered with UCX), with segment offsets in the shard file.
 *
 * <p>Sidecars sync a <b>virtual index</b>: the {@code .ecx} entries as stored (positions [0, ecx length)), then one
 * tombstone entry per {@code .ecj} id, so the existing needle-map sync and pushes carry deletions too. A shard is
 * served only once its file has the full shard size (a shard being copied in waits); a shard whose file goes or is
 * replaced stops being served. Confined to the agent's context.
 */
final class EcServedVolume implements SyncedIndex, Closeable {

    /** A shard file being served. */
    record Shard(int shardId, java.nio.file.Path path, FileChannel channel, Object fileKey, DatSegments segments) {
    }

    private static final int IDS_PER_READ = 4096;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(EcServedVolume.class);

    private final EcFileSet files;
    private final long epoch;
    private final EcVolumeInfo info;
    private final EcLayout layout;
    private final IndexFormat format;
    private final FileChannel ecx;
    private final EcIndex index;
    private final Object ecxKey;
    private final long ecxBytes;
    private final IndexTail tail;
    private final long expectedShardSize;
    private final SegmentMemory memory;
    /** Shard files an older generation served: not of this one, so never served by it. */
    private final Set<Object> olderShards;
    /** The generation's checksums when its {@code .ecsum} is in force, else null. */
    private final EcChecksums checksums;
    /** Shards found rotten, by the identity, length and time of the file found so (a new file is checked again). */
    private final Map<Integer, Object> rotten = new HashMap<>();
    private final Map<Integer, Shard> shards = new TreeMap<>();
    private final Set<Long> deletedSet = new HashSet<>();
    private long[] deleted = new long[16];
    private int deletedCount;
    private long ecjRead;

    private EcServedVolume(EcFileSet files, long epoch, EcVolumeInfo info, EcLayout layout, IndexFormat format,
                           FileChannel ecx, EcIndex index, Object ecxKey, SegmentMemory memory, Set<Object> olderShards,
                           EcChecksums checksums) {
        this.files = files;
        this.epoch = epoch;
        this.info = info;
        this.layout = layout;
        this.format = format;
        this.ecx = ecx;
        this.index = index;
        this.ecxKey = ecxKey;
        this.tail = new IndexTail(format);
        this.ecxBytes = index.entryCount() * format.entrySize();
        this.expectedShardSize = info.datFileSize() > 0 ? layout.shardFileSize(info.datFileSize()) : -1;
        this.memory = memory;
        this.olderShards = Set.copyOf(olderShards);
        this.checksums = checksums;
    }

    /**
     * Opens the .vif and .ecx; shards are served by {@link #refreshShards}, deletions read by {@link #followDeletions}.
     * {@code olderShards} are the identities ({@link ServedVolume#fileKey}) of shard files an older generation of
     * the volume served: where a generation's shards replace the old ones in place under the unsuffixed names, a
     * file still there unchanged after the vacuum's new {@code .ecx} appeared holds the old generation's bytes and
     * waits to be replaced. (Shards named {@code .ecNN.v<N>} are the generation's own.)
     */
    static EcServedVolume open(EcFileSet files, IndexFormat format, long epoch, long largeBlock, long smallBlock,
                               SegmentMemory memory, Set<Object> olderShards) throws IOException {
        EcVolumeInfo info = EcVolume.readInfo(files.vif());
        EcLayout layout = info.layout(largeBlock, smallBlock);
        Object key = ServedVolume.fileKey(files.ecx());
        EcIndex index = EcIndex.open(files.ecx(), format); // checks the length is whole entries
        FileChannel ecx = null;
        try {
            ecx = FileChannel.open(files.ecx(), StandardOpenOption.READ);
            EcChecksums.Loaded sums = EcChecksums.load(files.ecsum(), files.generation(), layout.dataShards(),
                    layout.parityShards());
            if (sums.status() == EcChecksums.Status.INVALID) {
                LOG.warn("EC volume " + files + ": its checksum file cannot be trusted (" + sums.reason()
                        + "); shards are served unchecked, every needle's own CRC still guards its reads");
            }
            return new EcServedVolume(files, epoch, info, layout, format, ecx, index, key, memory, olderShards,
                    sums.checksums());
        } catch (IOException | RuntimeException e) {
            index.close();
            if (ecx != null) {
                ecx.close();
            }
            throw e;
        }
    }

    @Override
    public long volumeId() {
        return files.volumeId();
    }

    @Override
    public long epoch() {
        return epoch;
    }

    EcFileSet files() {
        return files;
    }

    String name() {
        return files.baseName();
    }

    Object ecxKey() {
        return ecxKey;
    }

    /** Whether the index file is still the one opened, at the length opened (a copy still landing grows it). */
    boolean indexAsOpened() {
        try {
            return Objects.equals(ServedVolume.fileKey(files.ecx()), ecxKey) && Files.size(files.ecx()) == ecxBytes;
        } catch (IOException e) {
            return false;
        }
    }

    int generation() {
        return files.generation();
    }

    /**
     * Whether this agent alone can give every needle of the generation: its index and {@code .vif} were opened, and
     * it serves (verified against the {@code .ecsum} when one is in force) at least the data-shard count of shards.
     */
    boolean complete() {
        return shards.size() >= layout.dataShards();
    }

    /** Shard ids served now. */
    Set<Integer> shardIds() {
        return shards.keySet();
    }

    Map<Integer, Shard> shards() {
        return shards;
    }

    int deletions() {
        return deletedCount;
    }

    @Override
    public int idxEntryBytes() {
        return format.entrySize();
    }

    @Override
    public long appliedPosition() {
        return ecxBytes + (long) deletedCount * format.entrySize();
    }

    /**
     * Drops shards whose file went or was replaced (returned, for the caller to retire) and, when
     * {@code takeNew}, serves shards that appeared with their full size. {@code changed[0]} tells whether the served
     * set changed. (A generation with a newer one on disk takes no new shard: under unsuffixed names a new file is
     * the newer generation's.)
     */
    Future<List<ServedSegment>> refreshShards(boolean[] changed, List<String> problems, boolean takeNew) {
        List<ServedSegment> gone = new ArrayList<>();
        for (Shard shard : List.copyOf(shards.values())) {
            Object key;
            try {
                key = shard.path().equals(files.shard(shard.shardId())) ? ServedVolume.fileKey(shard.path()) : null;
            } catch (IOException e) {
                key = null;
            }
            if (!Objects.equals(key, shard.fileKey()) || key == null) {
                shards.remove(shard.shardId());
                gone.addAll(shard.segments().segments());
                closeQuietly(shard.channel());
                changed[0] = true;
            }
        }
        Future<Void> pass = Future.succeededFuture();
        for (int id = 0; id < layout.totalShards(); id++) {
            if (!takeNew || shards.containsKey(id)) {
                continue;
            }
            int shardId = id;
            pass = pass.compose(v -> serveShard(shardId, problems).map(served -> {
                changed[0] |= served;
                return null;
            }));
        }
        return pass.map(v -> gone);
    }

    private Future<Boolean> serveShard(int shardId, List<String> problems) {
        java.nio.file.Path path = files.shard(shardId);
        if (path == null) {
            return Future.succeededFuture(false);
        }
        FileChannel channel;
        Object key;
        long size;
        try {
            key = ServedVolume.fileKey(path);
            channel = FileChannel.open(path, StandardOpenOption.READ);
            size = channel.size();
        } catch (IOException e) {
            problems.add(path + ": " + e.getMessage());
            return Future.succeededFuture(false);
        }
        if (key != null && olderShards.contains(key)) {
            closeQuietly(channel);
            problems.add(path + " is still the shard an older generation served; " + files
                    + " waits for its own (not served)");
            return Future.succeededFuture(false);
        }
        long want = shardSize();
        if (size == 0 || (want >= 0 && size != want)) {
            closeQuietly(channel);
            if (want >= 0 && size > want) {
                problems.add(path + ": " + size + " bytes, but the volume's shards have " + want + "; not served");
            }
            return Future.succeededFuture(false); // still being copied in, or not of this volume
        }
        Object signature = Arrays.asList(key, size, lastModified(path));
        if (signature.equals(rotten.get(shardId))) {
            closeQuietly(channel);
            return Future.succeededFuture(false); // verified rotten already; waits to be replaced
        }
        return verify(shardId, path, channel).compose(bad -> {
            if (!bad.isEmpty()) {
                rotten.put(shardId, signature);
                closeQuietly(channel);
                problems.add(path + ": block(s) " + bad + " of " + checksums.blockSize() + " bytes fail their CRC-32C"
                        + " in " + files.ecsum() + "; the shard is rotten and not served (its bytes are rebuilt from"
                        + " other shards; SeaweedFS's ec.rebuild replaces it)");
                return Future.succeededFuture(false);
            }
            DatSegments segments = new DatSegments(channel, volumeId(), path.toString(), memory);
            return segments.growTo(size).map(none -> {
                shards.put(shardId, new Shard(shardId, path, channel, key, segments));
                return true;
            });
        }).recover(e -> {
            closeQuietly(channel);
            problems.add(path + ": " + e.getMessage());
            return Future.succeededFuture(false);
        });
    }

    /**
     * The shard's blocks that fail the generation's {@code .ecsum} (none when it has none in force), read off the
     * agent's context: a shard is read whole once, when it is first served.
     */
    private Future<List<Integer>> verify(int shardId, java.nio.file.Path path, FileChannel channel) {
        if (checksums == null) {
            return Future.succeededFuture(List.of());
        }
        Callable<List<Integer>> check = () -> checksums.mismatches(shardId, channel);
        Context context = Vertx.currentContext();
        if (context == null) {
            try {
                return Future.succeededFuture(check.call());
            } catch (Exception e) {
                return Future.failedFuture(e);
            }
        }
        return context.executeBlocking(check, true);
    }

    private static long lastModified(java.nio.file.Path path) {
        try {
            return Files.getLastModifiedTime(path).toMillis();
        } catch (IOException e) {
            return -1;
        }
    }

    /** The size every shard must have: from the .vif's datFileSize, else the first shard served. */
    long shardSize() {
        if (expectedShardSize >= 0) {
            return expectedShardSize;
        }
        return shards.isEmpty() ? -1 : shards.values().iterator().next().segments().mappedEnd();
    }

    /**
     * Reads the ids appended to the .ecj since the last call (a trailing partial id waits).
     *
     * @return the virtual index position before the call (entries from there up to {@link #appliedPosition()} are new)
     * @throws IOException when the journal shrank (replaced: the caller reopens the volume) or cannot be read
     */
    long followDeletions() throws IOException {
        long from = appliedPosition();
        long size;
        try {
            size = Files.size(files.ecj());
        } catch (NoSuchFileException e) {
            size = 0;
        }
        if (size < ecjRead) {
            throw new IOException(files.ecj() + " shrank from " + ecjRead + " to " + size + " bytes (replaced)");
        }
        long end = size - size % Long.BYTES;
        if (end == ecjRead) {
            return from;
        }
        if (end / Long.BYTES > org.seaweedfs.rdma.volume.ec.EcDeletions.MAX_IDS) {
            throw new IOException(files.ecj() + ": more than " + org.seaweedfs.rdma.volume.ec.EcDeletions.MAX_IDS
                    + " deleted ids");
        }
        try (FileChannel ch = FileChannel.open(files.ecj(), StandardOpenOption.READ)) {
            ByteBuffer block = ByteBuffer.allocate(IDS_PER_READ * Long.BYTES);
            while (ecjRead < end) {
                block.clear().limit((int) Math.min(block.capacity(), end - ecjRead));
                while (block.hasRemaining()) {
                    if (ch.read(block, ecjRead + block.position()) <= 0) {
                        throw new IOException(files.ecj() + ": journal shrank while being read at " + ecjRead);
                    }
                }
                block.flip();
                while (block.hasRemaining()) {
                    long id = block.getLong();
                    if (deletedCount == deleted.length) {
                        deleted = Arrays.copyOf(deleted, deletedCount * 2);
                    }
                    deleted[deletedCount++] = id;
                    deletedSet.add(id);
                }
                ecjRead += block.limit();
            }
        }
        return from;
    }

    @Override
    public SyncEntries syncFrame(long requestId, long from, int maxEntries) throws IOException {
        int width = format.entrySize();
        long to = Math.min(appliedPosition(), from + (long) maxEntries * width);
        SyncEntryWriter writer = new SyncEntryWriter(maxEntries);
        if (from < ecxBytes) {
            tail.read(ecx, from, Math.min(to, ecxBytes), writer::append, files.ecx().toString());
        }
        for (long at = Math.max(from, ecxBytes); at < to; at += width) {
            writer.append(deleted[(int) ((at - ecxBytes) / width)], 0, IndexFormat.TOMBSTONE_SIZE);
        }
        return writer.toMessage(requestId, volumeId(), epoch, from, to, to < appliedPosition());
    }

    /**
     * The needle's place in the original .dat from the .ecx, unless the .ecj deleted it. The cookie is not checked
     * here (its header may sit on a shard another agent holds): readers check it on the assembled record.
     */
    LookupResult lookup(long requestId, long key) throws IOException {
        EcIndex.Entry entry = liveEntry(key);
        if (entry == null) {
            return LookupResult.notFound(requestId, epoch);
        }
        return new LookupResult(requestId, true, epoch, entry.offset(),
                NeedleLayout.recordLength(entry.size(), info.version()), entry.size());
    }

    /** Writes result {@code i} of a batch lookup, as {@link #lookup} answers it. */
    void lookupInto(byte[] results, int i, long key) throws IOException {
        EcIndex.Entry entry = liveEntry(key);
        if (entry == null) {
            LookupBatchResult.put(results, i, LookupBatchResult.NOT_FOUND, epoch, 0, 0);
        } else {
            LookupBatchResult.put(results, i, LookupBatchResult.FOUND, epoch, entry.offset(), entry.size());
        }
    }

    /** The .ecx entry of a live needle (Size 0 included: an empty file); null when missing or deleted in the .ecj. */
    private EcIndex.Entry liveEntry(long key) throws IOException {
        return deletedSet.contains(key) ? null : index.find(key);
    }

    VolumeInfo describe() {
        List<EcShard> listed = new ArrayList<>(shards.size());
        shards.values().forEach(s -> listed.add(new EcShard(s.shardId(), s.segments().describe())));
        long shardSize = Math.max(0, shardSize());
        EcInfo ec = new EcInfo(layout.dataShards(), layout.parityShards(), info.datFileSize(), shardSize,
                layout.largeBlockSize(), layout.smallBlockSize(), listed);
        return new VolumeInfo(volumeId(), files.collection(), info.version(), epoch, info.datFileSize(),
                appliedPosition(), List.of(), ec);
    }

    /** The identities of the shard files older generations served. */
    Set<Object> olderShards() {
        return olderShards;
    }

    /** The identities of the shard files this generation or an older one served: none is a newer one's. */
    Set<Object> olderAndServedShards() {
        Set<Object> keys = new HashSet<>(olderShards);
        shards.values().forEach(s -> keys.add(s.fileKey()));
        keys.remove(null); // platforms without file identities: nothing to tell generations apart by
        return keys;
    }

    /** Every served segment of every shard. */
    List<ServedSegment> segments() {
        List<ServedSegment> all = new ArrayList<>();
        shards.values().forEach(s -> all.addAll(s.segments().segments()));
        return all;
    }

    @Override
    public void close() {
        shards.values().forEach(s -> closeQuietly(s.channel()));
        closeQuietly(ecx);
        closeQuietly(index);
    }

    private static void closeQuietly(Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            // nothing to do: read-only
        }
    }

    @Override
    public String toString() {
        return "EC volume " + name() + (files.generation() == 0 ? "" : " generation " + files.generation())
                + " epoch " + Long.toUnsignedString(epoch) + " shards " + shards.keySet();
    }
}
