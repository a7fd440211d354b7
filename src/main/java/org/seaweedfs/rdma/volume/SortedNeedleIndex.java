package org.seaweedfs.rdma.volume;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A volume's live needles as an immutable, checksummed file sorted by key, mapped read-only: the agent's needle index
 * at restart, read where it lies. Lookups touch about two cache lines and never the Java heap.
 *
 * <p><b>Layout</b> (little-endian): a 128-byte header (magic, {@link #VERSION}, entry count, smallest key, bucket
 * count, the widths below, the {@link Stamp} of the {@code .idx} it reflects, file length, CRC32C of the body, CRC32C
 * of the header); a bucket directory of {@code buckets + 1} u32 entry numbers; then the entries, bit-packed at
 * {@code entryBytes} each, and {@link MappedBytes#OVERLAP} bytes of zero padding. Keys minus the smallest key are
 * split in two: the high part picks a bucket (about 8 entries each), the low {@code keyBits} bits are stored in the
 * entry; then the offset in 8-byte units in {@code offsetBits} bits and the size in {@code sizeBits} bits, each just
 * as wide as the largest value in the volume needs. So an entry of a volume with random 64-bit keys, 5-byte offsets
 * and 32-bit sizes packs into 15 bytes (plus half a byte of directory); one with SeaweedFS's sequential keys, a few
 * GiB of {@code .dat} and small files into 6 to 9: below the 16 bytes SeaweedFS's own map keeps, with no free
 * slots. A reader elsewhere holding the directory (4 bytes per 8 needles) finds a needle with one read of its
 * bucket's bytes (about 8 entries: one or two cache lines).
 */
public final class SortedNeedleIndex implements Closeable {

    /** The {@code .idx} an index file reflects: stale when the {@code .idx} or the {@code .dat}'s revision differ. */
    public record Stamp(long idxCovered, int idxTailCrc, int compactionRevision, int idxEntryBytes) {
    }

    /** A key-ordered source of live entries (offsets in bytes), which can be walked more than once. */
    @FunctionalInterface
    public interface Entries {
        void forEach(NeedleEntryConsumer consumer) throws IOException;
    }

    public static final int VERSION = 1;
    static final long MAGIC = 0x3130_5844_4E49_5753L; // "SWINDX01" little-endian
    static final int HEADER = 128;
    static final int HEADER_CRC_AT = 124;
    private static final int ENTRIES_PER_BUCKET = 8;

    private final MappedBytes bytes;
    private final long count;
    private final long minKey;
    private final long buckets;
    private final int keyBits;
    private final int offsetBits;
    private final int sizeBits;
    private final int entryBytes;
    private final long entriesAt;
    private final Stamp stamp;
    private final long maxOffset;

    private SortedNeedleIndex(MappedBytes bytes) {
        this.bytes = bytes;
        this.count = bytes.getLong(16);
        this.minKey = bytes.getLong(24);
        this.buckets = bytes.getLong(32);
        long widths = bytes.getLong(40);
        this.keyBits = (int) (widths & 0xFF);
        this.offsetBits = (int) (widths >>> 8 & 0xFF);
        this.sizeBits = (int) (widths >>> 16 & 0xFF);
        this.entryBytes = (int) (widths >>> 24 & 0xFF);
        this.stamp = new Stamp(bytes.getLong(48), bytes.getInt(56), bytes.getInt(60) & 0xFFFF, bytes.getInt(60) >>> 16);
        this.maxOffset = bytes.getLong(64);
        this.entriesAt = entriesAt(buckets);
    }

    private static long entriesAt(long buckets) {
        return (HEADER + (buckets + 1) * 4 + 63) & ~63L;
    }

    /**
     * Writes the entries (ascending unsigned keys, live only) to {@code file}, through a temporary file renamed over
     * it, and maps the result.
     */
    public static SortedNeedleIndex write(Path file, Entries entries, Stamp stamp) throws IOException {
        long[] stats = {0, 0, 0, 0, 0}; // count, min, max, max units, max size
        entries.forEach((key, offset, size) -> {
            if (stats[0] > 0 && Long.compareUnsigned(key, stats[2]) <= 0) {
                throw new IllegalArgumentException("keys must ascend: " + Long.toUnsignedString(key) + " after "
                        + Long.toUnsignedString(stats[2]));
            }
            if (stats[0]++ == 0) {
                stats[1] = key;
            }
            stats[2] = key;
            stats[3] = Math.max(stats[3], offset / NeedleLayout.ALIGNMENT);
            stats[4] = Math.max(stats[4], size);
        });
        long n = stats[0];
        if (n > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException(n + " entries: an index file holds at most 2^32 - 1");
        }
        long span = stats[2] - stats[1];
        long target = Math.max(1, (n + ENTRIES_PER_BUCKET - 1) / ENTRIES_PER_BUCKET);
        int keyBits = keyBits(span, target);
        long buckets = keyBits == 64 ? 1 : (span >>> keyBits) + 1;
        int offsetBits = Math.max(1, 64 - Long.numberOfLeadingZeros(stats[3]));
        int sizeBits = Math.max(1, 64 - Long.numberOfLeadingZeros(stats[4]));
        int entryBytes = (keyBits + offsetBits + sizeBits + 7) / 8;
        long entriesAt = entriesAt(buckets);
        long length = entriesAt + n * entryBytes + MappedBytes.OVERLAP;

        Files.createDirectories(file.toAbsolutePath().getParent());
        Path tmp = Files.createTempFile(file.toAbsolutePath().getParent(), "." + file.getFileName(), ".tmp");
        MappedBytes out = null;
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ch.truncate(0);
                out = MappedBytes.map(ch, length - MappedBytes.OVERLAP, true);
            }
            MappedBytes o = out;
            long[] at = {0, 0}; // entry number, next bucket to start
            long min = stats[1];
            entries.forEach((key, offset, size) -> {
                long d = key - min;
                long bucket = keyBits == 64 ? 0 : d >>> keyBits;
                while (at[1] <= bucket) {
                    o.putInt(HEADER + at[1]++ * 4, (int) at[0]);
                }
                long p = entriesAt + at[0]++ * entryBytes;
                putField(o, p, 0, keyBits, d);
                putField(o, p, keyBits, offsetBits, offset / NeedleLayout.ALIGNMENT);
                putField(o, p, keyBits + offsetBits, sizeBits, size);
            });
            if (at[0] != n) {
                throw new IllegalStateException("the entries changed between two walks: " + at[0] + " != " + n);
            }
            while (at[1] <= buckets) {
                out.putInt(HEADER + at[1]++ * 4, (int) n);
            }
            out.putLong(0, MAGIC);
            out.putInt(8, VERSION);
            out.putInt(12, HEADER);
            out.putLong(16, n);
            out.putLong(24, min);
            out.putLong(32, buckets);
            out.putLong(40, keyBits | offsetBits << 8 | sizeBits << 16 | (long) entryBytes << 24);
            out.putLong(48, stamp.idxCovered());
            out.putInt(56, stamp.idxTailCrc());
            out.putInt(60, stamp.compactionRevision() | stamp.idxEntryBytes() << 16);
            out.putLong(64, stats[3] * NeedleLayout.ALIGNMENT);
            out.putLong(72, length);
            out.putInt(80, out.crc(HEADER, length));
            out.putInt(HEADER_CRC_AT, out.crc(0, HEADER_CRC_AT));
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return new SortedNeedleIndex(out);
        } catch (IOException | RuntimeException e) {
            if (out != null) {
                out.close();
            }
            Files.deleteIfExists(tmp);
            throw e;
        }
    }

    /**
     * Maps an index file and checks it whole (length, header and body checksums, widths), so a truncated or
     * corrupt file is never trusted. Whether it is stale is for the caller to tell from {@link #stamp()}.
     *
     * @throws VolumeFormatException when the file is not an intact index of this version
     */
    public static SortedNeedleIndex open(Path file) throws IOException {
        String source = file.toString();
        MappedBytes in;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < HEADER + MappedBytes.OVERLAP) {
                throw new VolumeFormatException(source, 0, "index file", size + " bytes is too short for a header");
            }
            in = MappedBytes.map(ch, size - MappedBytes.OVERLAP, false);
            try {
                check(in, size, source);
                return new SortedNeedleIndex(in);
            } catch (RuntimeException e) {
                in.close();
                throw e;
            }
        }
    }

    /** The fewest low key bits to store so that at most {@code target} buckets span the keys. */
    private static int keyBits(long span, long target) {
        int bits = 0;
        while (bits < 64 && Long.compareUnsigned(span >>> bits, target) >= 0) {
            bits++;
        }
        return bits;
    }

    private static void check(MappedBytes in, long size, String source) throws VolumeFormatException {
        if (in.getLong(0) != MAGIC) {
            throw new VolumeFormatException(source, 0, "magic", "not an agent needle index");
        }
        if (in.getInt(HEADER_CRC_AT) != in.crc(0, HEADER_CRC_AT)) {
            throw new VolumeFormatException(source, 0, "header", "checksum mismatch (corrupt)");
        }
        if (in.getInt(8) != VERSION || in.getInt(12) != HEADER) {
            throw new VolumeFormatException(source, 8, "version", "version " + in.getInt(8) + ", expected " + VERSION);
        }
        long length = in.getLong(72);
        if (length != size) {
            throw new VolumeFormatException(source, 72, "length", "file has " + size + " bytes, header says " + length
                    + " (truncated?)");
        }
        long n = in.getLong(16);
        long buckets = in.getLong(32);
        long widths = in.getLong(40);
        int keyBits = (int) (widths & 0xFF);
        int bits = keyBits + (int) (widths >>> 8 & 0xFF) + (int) (widths >>> 16 & 0xFF);
        int entryBytes = (int) (widths >>> 24 & 0xFF);
        if (n < 0 || buckets < 1 || buckets > Math.max(1, n) || keyBits > 64 || entryBytes * 8 < bits
                || entryBytes > 17 || entriesAt(buckets) + n * entryBytes + MappedBytes.OVERLAP != length) {
            throw new VolumeFormatException(source, 16, "geometry", "inconsistent counts and widths");
        }
        if (in.getInt(80) != in.crc(HEADER, length)) {
            throw new VolumeFormatException(source, HEADER, "body", "checksum mismatch (corrupt)");
        }
    }

    public Stamp stamp() {
        return stamp;
    }

    public long count() {
        return count;
    }

    /** The largest record offset (bytes) of any entry: the {@code .dat} must be longer. */
    public long maxOffset() {
        return maxOffset;
    }

    /** Bytes of the mapped file, for footprint figures. */
    public long fileBytes() {
        return bytes.size() + MappedBytes.OVERLAP;
    }

    public int entryBytes() {
        return entryBytes;
    }

    /** The entry number holding {@code key}, or -1. */
    public long find(long key) {
        if (count == 0 || Long.compareUnsigned(key, minKey) < 0) {
            return -1;
        }
        long d = key - minKey;
        long bucket = keyBits == 64 ? 0 : d >>> keyBits;
        if (Long.compareUnsigned(bucket, buckets) >= 0) {
            return -1;
        }
        long low = bucketStart(bucket);
        long high = bucketStart(bucket + 1) - 1;
        long want = keyBits == 64 ? d : d & ((1L << keyBits) - 1);
        while (low <= high) {
            long mid = (low + high) >>> 1;
            int order = Long.compareUnsigned(field(entriesAt + mid * entryBytes, 0, keyBits), want);
            if (order == 0) {
                return mid;
            }
            if (order < 0) {
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return -1;
    }

    /** Copies the whole file (header, directory, entries, padding: {@link #fileBytes()}) to {@code into}'s position. */
    public void copyTo(java.nio.ByteBuffer into) {
        bytes.get(0, into, Math.toIntExact(fileBytes()));
    }

    /** Offset in bytes of entry {@code i}'s record. */
    public long offsetAt(long i) {
        return field(entriesAt + i * entryBytes, keyBits, offsetBits) * NeedleLayout.ALIGNMENT;
    }

    public int sizeAt(long i) {
        return (int) field(entriesAt + i * entryBytes, keyBits + offsetBits, sizeBits);
    }

    /** Visits every entry in ascending key order. */
    public void forEach(NeedleEntryConsumer consumer) {
        for (long b = 0; b < buckets; b++) {
            long end = bucketStart(b + 1);
            long high = keyBits == 64 ? 0 : b << keyBits;
            for (long i = bucketStart(b); i < end; i++) {
                long key = minKey + (high | field(entriesAt + i * entryBytes, 0, keyBits));
                consumer.accept(key, offsetAt(i), sizeAt(i));
            }
        }
    }

    private long bucketStart(long bucket) {
        return bytes.getInt(HEADER + bucket * 4) & 0xFFFF_FFFFL;
    }

    private long field(long entry, int bitAt, int bits) {
        if (bits > 56) {
            return field(entry, bitAt, 32) | field(entry, bitAt + 32, bits - 32) << 32;
        }
        return bits == 0 ? 0 : (bytes.getLong(entry + (bitAt >>> 3)) >>> (bitAt & 7)) & ((1L << bits) - 1);
    }

    private static void putField(MappedBytes out, long entry, int bitAt, int bits, long value) {
        if (bits > 56) {
            putField(out, entry, bitAt, 32, value & 0xFFFF_FFFFL);
            putField(out, entry, bitAt + 32, bits - 32, value >>> 32);
            return;
        }
        if (bits > 0) {
            long at = entry + (bitAt >>> 3);
            out.putLong(at, out.getLong(at) | (value & ((1L << bits) - 1)) << (bitAt & 7));
        }
    }

    @Override
    public void close() {
        bytes.close();
    }
}
