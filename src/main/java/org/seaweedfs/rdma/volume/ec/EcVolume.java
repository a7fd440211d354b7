package org.seaweedfs.rdma.volume.ec;

import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NeedleHeader;
import org.seaweedfs.rdma.volume.NeedleLayout;
import org.seaweedfs.rdma.volume.SuperBlock;
import org.seaweedfs.rdma.volume.VolumeFormatException;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * One EC volume read from the shards present in one directory: {@code .vif}, {@code .ecx}, {@code .ecj} and
 * whichever {@code .ecNN} are there. A record is read interval by interval from the data shards; an interval
 * whose data shard is absent is rebuilt from any {@code dataShards} present shards. A shard that fails the
 * volume's {@code .ecsum} checksums counts as absent. A volume without a
 * {@code .vif} is read as SeaweedFS does: version 3, 10 + 4, the shard size standing in for the {@code .dat}'s.
 * Lookups and reads are positional and may run on any thread; {@link #followDeletions} belongs to one owner.
 */
public final class EcVolume implements Closeable {

    private static final int REBUILD_CHUNK = 1 << 20;

    private final EcFiles files;
    private final EcVolumeInfo info;
    private final EcLayout layout;
    private final EcIndex index;
    private final EcDeletions deletions;
    private final FileChannel[] shards;
    private final long shardFileSize;
    private final ReedSolomon codec;
    private List<Integer> rottenShards = List.of();

    private EcVolume(EcFiles files, EcVolumeInfo info, EcLayout layout, EcIndex index, FileChannel[] shards,
                     long shardFileSize) {
        this.files = files;
        this.info = info;
        this.layout = layout;
        this.index = index;
        this.deletions = new EcDeletions(files.ecj());
        this.shards = shards;
        this.shardFileSize = shardFileSize;
        this.codec = new ReedSolomon(layout.dataShards(), layout.parityShards());
    }

    /** Opens with SeaweedFS's block sizes. */
    public static EcVolume open(EcFiles files, IndexFormat format) throws IOException {
        return open(files, format, EcLayout.LARGE_BLOCK, EcLayout.SMALL_BLOCK);
    }

    /** Opens with the given block sizes (tests use small ones, as SeaweedFS's own tests do). */
    public static EcVolume open(EcFiles files, IndexFormat format, long largeBlock,
            long smallBlock) throws IOException {
        EcVolumeInfo info = readInfo(files);
        EcLayout layout = info.layout(largeBlock, smallBlock);
        FileChannel[] shards = new FileChannel[layout.totalShards()];
        EcIndex index = null;
        try {
            long shardSize = -1;
            for (int i = 0; i < shards.length; i++) {
                Path shard = files.shard(i);
                if (!Files.isRegularFile(shard)) {
                    continue;
                }
                shards[i] = FileChannel.open(shard, StandardOpenOption.READ);
                long size = shards[i].size();
                if (shardSize >= 0 && size != shardSize) {
                    throw new VolumeFormatException(shard.toString(), 0, "shard length",
                            size + " bytes, other shards of the volume have " + shardSize);
                }
                shardSize = size;
            }
            if (shardSize < 0) {
                throw new VolumeFormatException(files.dir().resolve(files.baseName() + ".ec??").toString(), 0, "shards",
                        "no shard file present");
            }
            if (info.datFileSize() > 0 && layout.shardFileSize(info.datFileSize()) != shardSize) {
                throw new VolumeFormatException(files.shard(firstPresent(shards)).toString(), 0, "shard length",
                        shardSize + " bytes, but the .vif's datFileSize " + info.datFileSize() + " gives "
                                + layout.shardFileSize(info.datFileSize()));
            }
            List<Integer> rotten = dropRotten(files, layout, shards);
            index = EcIndex.open(files.ecx(), format);
            EcVolume volume = new EcVolume(files, info, layout, index, shards, shardSize);
            volume.rottenShards = List.copyOf(rotten);
            volume.followDeletions();
            return volume;
        } catch (IOException | RuntimeException e) {
            closeAll(shards, index);
            throw e;
        }
    }

    /**
     * Closes and forgets the shards whose blocks fail the volume's {@code .ecsum} (when it has one in force), so no
     * read or rebuild takes their bytes; returns their ids. Reads every present shard whole.
     */
    private static List<Integer> dropRotten(EcFiles files, EcLayout layout, FileChannel[] shards) throws IOException {
        EcChecksums.Loaded sums = EcChecksums.load(files.ecsum(0), 0, layout.dataShards(), layout.parityShards());
        List<Integer> rotten = new ArrayList<>();
        for (int i = 0; i < shards.length && sums.status() == EcChecksums.Status.ON; i++) {
            if (shards[i] != null && !sums.checksums().mismatches(i, shards[i]).isEmpty()) {
                shards[i].close();
                shards[i] = null;
                rotten.add(i);
            }
        }
        return rotten;
    }

    /** The .vif, or SeaweedFS's defaults when there is none. */
    public static EcVolumeInfo readInfo(EcFiles files) throws IOException {
        return readInfo(Files.isRegularFile(files.vif()) ? files.vif() : null);
    }

    /** The .vif at {@code vif}, or SeaweedFS's defaults when null. */
    public static EcVolumeInfo readInfo(Path vif) throws IOException {
        return vif != null ? EcVolumeInfo.read(vif)
                : new EcVolumeInfo(SuperBlock.VERSION_3, 0, EcLayout.DEFAULT_DATA_SHARDS,
                        EcLayout.DEFAULT_PARITY_SHARDS, false);
    }

    /** Applies ids appended to the {@code .ecj}; returns how many were new. */
    public long followDeletions() throws IOException {
        return deletions.follow();
    }

    /**
     * The needle's live {@code .ecx} entry, or null when absent or deleted (in the {@code .ecx} or the {@code .ecj}).
     */
    public EcIndex.Entry lookup(long key) throws IOException {
        EcIndex.Entry entry = index.find(key);
        return entry == null || deletions.isDeleted(key) ? null : entry;
    }

    /** The "shard dat size" the locator works from. */
    public long shardDatSize() {
        return layout.shardDatSize(info.datFileSize(), shardFileSize);
    }

    /** Bytes of the original {@code .dat} the shards can hold. */
    public long datCapacity() {
        return info.datFileSize() > 0 ? info.datFileSize() : shardFileSize * layout.dataShards();
    }

    /** Where the record of {@code size} at {@code offset} is (its used length: no padding). */
    public List<EcInterval> locateRecord(long offset, long size) {
        long used = NeedleLayout.usedLength(size, info.version());
        if (offset < 0 || used > datCapacity() - offset) {
            throw new VolumeFormatException(files.ecx().toString(), offset, "size", size + " needs a record of " + used
                    + " bytes, past the " + datCapacity() + " bytes the shards hold");
        }
        return layout.locate(shardDatSize(), offset, used);
    }

    /**
     * Reads a record (without its padding) into a heap buffer, rebuilding intervals of absent data shards, and
     * checks its header against the index's size.
     *
     * @throws VolumeFormatException when the record does not fit or its header disagrees, or too few shards are
     *                               present to rebuild a missing one
     */
    public ByteBuffer readRecord(long offset, long size) throws IOException {
        List<EcInterval> intervals = locateRecord(offset, size);
        long used = NeedleLayout.usedLength(size, info.version());
        if (used > Integer.MAX_VALUE - 8) {
            throw new VolumeFormatException(files.ecx().toString(), offset, "size", size
                    + " is too large to read whole");
        }
        ByteBuffer record = ByteBuffer.allocate((int) used);
        for (EcInterval interval : intervals) {
            readInterval(interval, record);
        }
        record.flip();
        long headerSize = NeedleHeader.parse(record, 0, files.ecx().toString(), offset).size();
        if (headerSize != size) {
            throw new VolumeFormatException(files.ecx().toString(), offset, "size", "record header says " + headerSize
                    + ", index says " + size);
        }
        return record;
    }

    /** Appends the interval's bytes to {@code into}, from its shard or rebuilt. */
    public void readInterval(EcInterval interval, ByteBuffer into) throws IOException {
        FileChannel shard = shards[interval.shardId()];
        if (shard != null) {
            ByteBuffer part = into.slice(into.position(), (int) interval.length());
            fill(shard, part, interval.shardOffset(), files.shard(interval.shardId()));
            into.position(into.position() + (int) interval.length());
            return;
        }
        rebuild(interval, into);
    }

    private void rebuild(EcInterval interval, ByteBuffer into) throws IOException {
        int total = layout.totalShards();
        boolean[] present = new boolean[total];
        byte[][] buffers = new byte[total][];
        int chosen = 0;
        for (int i = 0; i < total && chosen < layout.dataShards(); i++) {
            if (shards[i] != null) {
                present[i] = true;
                chosen++;
            }
        }
        if (chosen < layout.dataShards()) {
            throw new VolumeFormatException(files.shard(interval.shardId()).toString(), interval.shardOffset(),
                    "shards",
                    "shard " + interval.shardId() + " is absent and only " + chosen + " of the " + layout.dataShards()
                            + " shards needed to rebuild it are present");
        }
        int chunk = (int) Math.min(REBUILD_CHUNK, interval.length());
        for (int i = 0; i < layout.dataShards(); i++) {
            buffers[i] = new byte[chunk];
        }
        for (int i = layout.dataShards(); i < total; i++) {
            buffers[i] = present[i] ? new byte[chunk] : null;
        }
        for (long done = 0; done < interval.length(); done += chunk) {
            int n = (int) Math.min(chunk, interval.length() - done);
            for (int i = 0; i < total; i++) {
                if (present[i]) {
                    fill(shards[i], ByteBuffer.wrap(buffers[i], 0, n), interval.shardOffset() + done, files.shard(i));
                }
            }
            codec.reconstructData(buffers, present, 0, n);
            into.put(buffers[interval.shardId()], 0, n);
        }
    }

    private static void fill(FileChannel ch, ByteBuffer into, long position, Path source) throws IOException {
        long at = position;
        int start = into.position();
        while (into.hasRemaining()) {
            int n = ch.read(into, at);
            if (n <= 0) {
                throw new VolumeFormatException(source.toString(), position, "shard data",
                        "file ends after " + (at - position) + " of " + (into.limit() - start) + " bytes");
            }
            at += n;
        }
    }

    public EcFiles files() {
        return files;
    }

    public EcVolumeInfo info() {
        return info;
    }

    public EcLayout layout() {
        return layout;
    }

    public EcIndex index() {
        return index;
    }

    public EcDeletions deletions() {
        return deletions;
    }

    public int version() {
        return info.version();
    }

    public long shardFileSize() {
        return shardFileSize;
    }

    /** Shards present but failing the {@code .ecsum}: not read (their bytes are rebuilt from the others). */
    public List<Integer> rottenShards() {
        return rottenShards;
    }

    public boolean hasShard(int shardId) {
        return shards[shardId] != null;
    }

    private static int firstPresent(FileChannel[] shards) {
        for (int i = 0; i < shards.length; i++) {
            if (shards[i] != null) {
                return i;
            }
        }
        return 0;
    }

    private static void closeAll(FileChannel[] shards, EcIndex index) throws IOException {
        for (FileChannel shard : shards) {
            if (shard != null) {
                shard.close();
            }
        }
        if (index != null) {
            index.close();
        }
    }

    @Override
    public void close() throws IOException {
        closeAll(shards, index);
    }
}
