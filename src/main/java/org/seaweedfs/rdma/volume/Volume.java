package org.seaweedfs.rdma.volume;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * One open volume: its super block, its {@code .dat} channel and a needle map replayed from the {@code .idx}
 * (or rebuilt from the {@code .dat} when there is no index). {@link #readRecord} is positional and may be
 * called from any thread; the map, {@link #read} (which consults it) and {@link #followIndex} are not
 * thread-safe and belong to the owner's thread.
 */
public final class Volume implements Closeable {

    private final VolumeFiles files;
    private final FileChannel dat;
    private final SuperBlock superBlock;
    private final NeedleMap map;
    private final IndexReplay replay;
    private long indexPosition;

    private Volume(VolumeFiles files, FileChannel dat, SuperBlock superBlock, NeedleMap map, IndexReplay replay) {
        this.files = files;
        this.dat = dat;
        this.superBlock = superBlock;
        this.map = map;
        this.replay = replay;
    }

    /** Opens the volume, validating the super block and loading the needle map. */
    public static Volume open(VolumeFiles files, IndexFormat format) throws IOException {
        FileChannel dat = FileChannel.open(files.dat(), StandardOpenOption.READ);
        try {
            SuperBlock superBlock = SuperBlock.read(dat, files.dat().toString());
            Volume volume = new Volume(files, dat, superBlock, new NeedleMap(), new IndexReplay(format));
            if (files.hasIndex()) {
                volume.followIndex(null);
            } else {
                new DatScan().rebuild(dat, superBlock, volume.map, files.dat().toString(), null);
            }
            return volume;
        } catch (IOException | RuntimeException e) {
            dat.close();
            throw e;
        }
    }

    /**
     * Applies the entries appended to the {@code .idx} since the last call; {@code applied} (may be null)
     * sees each one. Returns the new position and the number of entries applied.
     */
    public IndexProgress followIndex(NeedleEntryConsumer applied) throws IOException {
        if (!files.hasIndex()) {
            return new IndexProgress(0, 0);
        }
        try (FileChannel idx = FileChannel.open(files.idx(), StandardOpenOption.READ)) {
            IndexProgress progress = replay.apply(idx, indexPosition, map, applied, files.idx().toString());
            indexPosition = progress.position();
            return progress;
        }
    }

    /**
     * Looks a needle up and reads it as the volume server would: absent, deleted, Size 0, a wrong cookie or
     * an expired ttl all read as empty.
     *
     * @throws VolumeFormatException when the record is corrupt (its checksum included)
     */
    public Optional<NeedleRecord> read(long key, int cookie, long nowMillis) throws IOException {
        int slot = map.slotOf(key);
        if (slot < 0 || map.sizeAt(slot) == 0) {
            return Optional.empty();
        }
        long offset = map.offsetAt(slot);
        NeedleRecord needle =
                NeedleRecord.parse(readRecord(offset, map.sizeAt(slot)), 0, version(), files.dat().toString(), offset);
        if (needle.key() != key) {
            throw new VolumeFormatException(files.dat().toString(), offset, "key",
                    "record holds " + Long.toHexString(needle.key()) + ", index says " + Long.toHexString(key));
        }
        if (needle.cookie() != cookie || needle.expiredAt(nowMillis)) {
            return Optional.empty();
        }
        if (needle.verify() == CrcState.BAD) {
            throw new VolumeFormatException(files.dat().toString(), offset, "checksum",
                    "stored " + Integer.toHexString(needle.tail().checksum())
                            + " matches neither form of the data's CRC-32C "
                            + Integer.toHexString(needle.computeCrc()));
        }
        return Optional.of(needle);
    }

    public Optional<NeedleRecord> read(FileId fid, long nowMillis) throws IOException {
        return read(fid.key(), fid.cookie(), nowMillis);
    }

    /**
     * Reads the record at {@code offset} whose index entry says {@code size} into a new heap buffer (without
     * its padding), after checking it against the file's length and the record's own header.
     */
    public ByteBuffer readRecord(long offset, long size) throws IOException {
        String source = files.dat().toString();
        long used = NeedleLayout.usedLength(size, version());
        long available = dat.size() - offset;
        if (used > available || used > Integer.MAX_VALUE) {
            throw new VolumeFormatException(source, offset, "size", size + " needs a record of " + used
                    + " bytes but " + Math.max(0, available) + " remain in the file");
        }
        ByteBuffer record = ByteBuffer.allocate((int) used);
        PositionalRead.fully(dat, record, offset, source, "needle record");
        record.flip();
        long headerSize = NeedleHeader.parse(record, 0, source, offset).size();
        if (headerSize != size) {
            throw new VolumeFormatException(source, offset, "size", "record header says " + headerSize + ", index says "
                    + size);
        }
        return record;
    }

    public VolumeFiles files() {
        return files;
    }

    public SuperBlock superBlock() {
        return superBlock;
    }

    public int version() {
        return superBlock.version();
    }

    /** The live needles; owned by the thread that follows the index. */
    public NeedleMap map() {
        return map;
    }

    /** The data file, for positional reads (and memory mapping by the agent). */
    public FileChannel dat() {
        return dat;
    }

    /** How far the index has been applied, in bytes. */
    public long indexPosition() {
        return indexPosition;
    }

    @Override
    public void close() throws IOException {
        dat.close();
    }
}
