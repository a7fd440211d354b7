package org.seaweedfs.rdma.volume.ec;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * An EC generation's bitrot checksums, SeaweedFS's optional {@code <base>.ecsum} ({@code <base>.ecsum.v<N>} for
 * generation N; weed/storage/erasure_coding/ec_bitrot.go, weed/pb/volume_server.proto): a CRC-32C of every block
 * (16 MiB by default) of every shard. On disk a 14-byte big-endian header, magic {@code 0x45435355} ("ECSU"), format
 * version 1 (u16), payload length (u32) and the payload's CRC-32C (u32), then the payload: the protobuf
 * {@code EcBitrotProtection} {algorithm = 1 (CRC-32C), block_size, generation, ec_shard_config {data_shards,
 * parity_shards, encode_ts_ns}, shards [{shard_id, covered_size, block_crc32c = packed little-endian u32}],
 * encode_uuid}.
 *
 * <p>Loaded as SeaweedFS loads it: {@link Status#OFF} when absent or describing another generation or shard
 * counts (the generation is unprotected, nothing is wrong); {@link Status#INVALID} when the file fails its own
 * checksum or its manifest is malformed (the checksums cannot be trusted either way); else {@link Status#ON}.
 */
public final class EcChecksums {

    /** What a load found. */
    public enum Status { OFF, ON, INVALID }

    /** The outcome of {@link #load}: the checksums when {@link Status#ON}, else why not. */
    public record Loaded(Status status, EcChecksums checksums, String reason) {
    }

    public static final int MAGIC = 0x45435355;
    public static final int FORMAT_VERSION = 1;
    public static final int HEADER_SIZE = 14;
    public static final int ALGORITHM_CRC32C = 1;
    /** SeaweedFS's bounds on the block: a power of two from 1 MiB to 64 MiB. */
    public static final int MIN_BLOCK_SIZE = 1 << 20;
    public static final int MAX_BLOCK_SIZE = 64 << 20;
    /** Larger files are refused: 32 shards of a terabyte in 1 MiB blocks need 128 MiB; real ones are kilobytes. */
    public static final long MAX_FILE_SIZE = 128L << 20;
    private static final int READ_CHUNK = 1 << 20;

    private final int blockSize;
    /** Per shard id: covered size, or -1 when the manifest has no entry (never, once validated). */
    private final long[] covered;
    private final int[][] crcs;

    private EcChecksums(int blockSize, long[] covered, int[][] crcs) {
        this.blockSize = blockSize;
        this.covered = covered;
        this.crcs = crcs;
    }

    /** Loads {@code file} (null or absent: OFF) for the generation and shard counts the volume has. */
    public static Loaded load(Path file, int generation, int dataShards, int parityShards) throws IOException {
        if (file == null || !Files.isRegularFile(file)) {
            return new Loaded(Status.OFF, null, "no checksum file");
        }
        long size = Files.size(file);
        if (size > MAX_FILE_SIZE) {
            return invalid(file, size + " bytes, more than the " + MAX_FILE_SIZE + " a checksum file may have");
        }
        return parse(Files.readAllBytes(file), file.toString(), generation, dataShards, parityShards);
    }

    /** {@link #load} of bytes already read; {@code source} names them in reasons. */
    public static Loaded parse(byte[] bytes, String source, int generation, int dataShards, int parityShards) {
        Path name = Path.of(source);
        ByteBuffer header = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
        if (bytes.length < HEADER_SIZE) {
            return invalid(name, "too short (" + bytes.length + " bytes)");
        }
        if (header.getInt(0) != MAGIC) {
            return invalid(name, String.format("bad magic 0x%08x", header.getInt(0)));
        }
        if ((header.getShort(4) & 0xFFFF) != FORMAT_VERSION) {
            return invalid(name, "unsupported format version " + (header.getShort(4) & 0xFFFF));
        }
        long length = Integer.toUnsignedLong(header.getInt(6));
        if (length != bytes.length - HEADER_SIZE) {
            return invalid(name, "payload length " + length + " in the header, " + (bytes.length - HEADER_SIZE)
                    + " in the file");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, HEADER_SIZE, bytes.length - HEADER_SIZE);
        if ((int) crc.getValue() != header.getInt(10)) {
            return invalid(name, String.format("payload checksum 0x%08x, header says 0x%08x", (int) crc.getValue(),
                    header.getInt(10)));
        }
        Manifest m;
        try {
            m = Manifest.read(CodedInputStream.newInstance(bytes, HEADER_SIZE, bytes.length - HEADER_SIZE));
        } catch (IOException e) {
            return invalid(name, "malformed payload: " + e.getMessage());
        }
        if (m.generation != Integer.toUnsignedLong(generation)) {
            return new Loaded(Status.OFF, null, name + " describes generation " + m.generation + ", not "
                    + generation);
        }
        if (!m.hasConfig || m.dataShards != dataShards || m.parityShards != parityShards) {
            return new Loaded(Status.OFF, null, name + " describes other shard counts (" + m.dataShards + " + "
                    + m.parityShards + ")");
        }
        return m.validate(name, dataShards + parityShards);
    }

    private static Loaded invalid(Path file, String problem) {
        return new Loaded(Status.INVALID, null, file + ": " + problem);
    }

    public int blockSize() {
        return blockSize;
    }

    /** The shard length the checksums cover. */
    public long coveredSize(int shardId) {
        return covered[shardId];
    }

    /**
     * The blocks of the shard whose CRC-32C differs from the manifest (every block when the file's length is not
     * the covered size: a truncated or grown shard is corrupt). Reads the whole shard, one block at a time.
     */
    public List<Integer> mismatches(int shardId, FileChannel shard) throws IOException {
        int[] want = crcs[shardId];
        List<Integer> bad = new ArrayList<>();
        if (shard.size() != covered[shardId]) {
            for (int i = 0; i < want.length; i++) {
                bad.add(i);
            }
            return bad;
        }
        ByteBuffer chunk = ByteBuffer.allocate(READ_CHUNK); // a block is read in chunks: the heap holds one
        CRC32C crc = new CRC32C();
        for (int i = 0; i < want.length; i++) {
            long end = Math.min(covered[shardId], (long) (i + 1) * blockSize);
            crc.reset();
            for (long at = (long) i * blockSize; at < end; at += chunk.limit()) {
                chunk.clear().limit((int) Math.min(READ_CHUNK, end - at));
                while (chunk.hasRemaining()) {
                    if (shard.read(chunk, at + chunk.position()) < 0) {
                        throw new IOException("shard ended at " + (at + chunk.position()) + " while being verified");
                    }
                }
                crc.update(chunk.flip());
            }
            if ((int) crc.getValue() != want[i]) {
                bad.add(i);
            }
        }
        return bad;
    }

    /** The protobuf message as read, before validation. */
    private static final class Manifest {
        long algorithm;
        long blockSize;
        long generation;
        boolean hasConfig;
        long dataShards;
        long parityShards;
        final List<long[]> shards = new ArrayList<>();
        final List<byte[]> packed = new ArrayList<>();

        static Manifest read(CodedInputStream in) throws IOException {
            Manifest m = new Manifest();
            for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
                switch (tag) {
                    case (1 << 3) | WireFormat.WIRETYPE_VARINT -> m.algorithm = in.readUInt64();
                    case (2 << 3) | WireFormat.WIRETYPE_VARINT -> m.blockSize = in.readUInt64();
                    case (3 << 3) | WireFormat.WIRETYPE_VARINT -> m.generation = in.readUInt64();
                    case (4 << 3) | WireFormat.WIRETYPE_LENGTH_DELIMITED -> {
                        int limit = in.pushLimit(in.readRawVarint32());
                        m.hasConfig = true;
                        for (int t = in.readTag(); t != 0; t = in.readTag()) {
                            switch (t) {
                                case (1 << 3) | WireFormat.WIRETYPE_VARINT -> m.dataShards = in.readUInt64();
                                case (2 << 3) | WireFormat.WIRETYPE_VARINT -> m.parityShards = in.readUInt64();
                                default -> in.skipField(t);
                            }
                        }
                        in.popLimit(limit);
                    }
                    case (5 << 3) | WireFormat.WIRETYPE_LENGTH_DELIMITED -> {
                        int limit = in.pushLimit(in.readRawVarint32());
                        long[] shard = {0, 0};
                        byte[] crcs = new byte[0];
                        for (int t = in.readTag(); t != 0; t = in.readTag()) {
                            switch (t) {
                                case (1 << 3) | WireFormat.WIRETYPE_VARINT -> shard[0] = in.readUInt64();
                                case (2 << 3) | WireFormat.WIRETYPE_VARINT -> shard[1] = in.readInt64();
                                case (3 << 3) | WireFormat.WIRETYPE_LENGTH_DELIMITED -> crcs = in.readByteArray();
                                default -> in.skipField(t);
                            }
                        }
                        in.popLimit(limit);
                        m.shards.add(shard);
                        m.packed.add(crcs);
                    }
                    default -> in.skipField(tag);
                }
            }
            return m;
        }

        /** SeaweedFS's ValidateBitrotManifest: one complete, well-formed entry per shard of the layout. */
        Loaded validate(Path name, int total) {
            if (algorithm != ALGORITHM_CRC32C) {
                return invalid(name, "unsupported checksum algorithm " + algorithm);
            }
            if (blockSize < MIN_BLOCK_SIZE || blockSize > MAX_BLOCK_SIZE || Long.bitCount(blockSize) != 1) {
                return invalid(name, "block size " + blockSize + " is not a power of two from 1 MiB to 64 MiB");
            }
            if (shards.size() != total) {
                return invalid(name, shards.size() + " shard entries, the layout has " + total + " shards");
            }
            long[] covered = new long[total];
            int[][] crcs = new int[total][];
            for (int i = 0; i < shards.size(); i++) {
                long id = shards.get(i)[0];
                long size = shards.get(i)[1];
                if (id >= total || crcs[(int) id] != null) {
                    return invalid(name, "shard id " + id + " is out of range or listed twice");
                }
                long blocks = size <= 0 ? -1 : (size + blockSize - 1) / blockSize;
                if (blocks < 0 || packed.get(i).length != blocks * 4) {
                    return invalid(name, "shard " + id + " covers " + size + " bytes but has "
                            + packed.get(i).length + " bytes of checksums");
                }
                ByteBuffer le = ByteBuffer.wrap(packed.get(i)).order(ByteOrder.LITTLE_ENDIAN);
                crcs[(int) id] = new int[(int) blocks];
                for (int b = 0; b < blocks; b++) {
                    crcs[(int) id][b] = le.getInt();
                }
                covered[(int) id] = size;
            }
            return new Loaded(Status.ON, new EcChecksums((int) blockSize, covered, crcs), "protected");
        }
    }
}
