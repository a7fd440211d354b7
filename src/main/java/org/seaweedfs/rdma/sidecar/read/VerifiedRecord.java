package org.seaweedfs.rdma.sidecar.read;

import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.ReadFailure;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.seaweedfs.rdma.volume.CrcState;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.NeedleChecksum;
import org.seaweedfs.rdma.volume.NeedleHeader;
import org.seaweedfs.rdma.volume.NeedleLayout;
import org.seaweedfs.rdma.volume.NeedleMeta;
import org.seaweedfs.rdma.volume.NeedleTail;
import org.seaweedfs.rdma.volume.SuperBlock;
import org.seaweedfs.rdma.volume.VolumeFormatException;

/**
 * A needle record that passed every check a volume server makes before it serves bytes, whichever path fetched
 * it (UCX gets into pooled buffers, or read-through copies).
 *
 * @param stat the needle's metadata
 * @param data the stored data as slices of the pieces it was checked in (no copy), in order
 */
record VerifiedRecord(NeedleStat stat, List<ByteBuffer> data) {

    /**
     * Parses and verifies a record delivered as consecutive pieces from its first byte (each piece's bytes are
     * between position 0 and its limit; together they cover at least the record up to its checksum/timestamp).
     *
     * @param expectedSize the Size the needle map (or lookup) gave for the record
     * @param clockMillis  now, in unix ms (read only for a needle with a ttl)
     * @throws StaleLocation when the record holds another key or Size
     * @throws ReadFailure   NOT_FOUND (wrong cookie, ttl expired); a Size-0 record
     *                       (an empty file) passes as empty data or CORRUPT (malformed, bad checksum)
     */
    static VerifiedRecord check(FileId fid, long expectedSize, int version, List<ByteBuffer> pieces,
                                LongSupplier clockMillis, String source, String where, long recordOffset) {
        try {
            return parse(fid, expectedSize, version, pieces, clockMillis, source, where, recordOffset);
        } catch (VolumeFormatException e) {
            throw ReadFailure.corrupt("needle " + fid + ": " + e.getMessage());
        }
    }

    private static VerifiedRecord parse(FileId fid, long expectedSize, int version, List<ByteBuffer> pieces,
                                        LongSupplier clockMillis, String source, String where, long recordOffset) {
        ByteBuffer first = pieces.get(0);
        NeedleHeader header = NeedleHeader.parse(first, 0, where, recordOffset);
        if (header.key() != fid.key() || header.size() != expectedSize) {
            throw new StaleLocation("record at " + recordOffset + " of " + where + " holds key "
                    + Long.toHexString(header.key()) + " size " + header.size() + ", expected key "
                    + Long.toHexString(fid.key()) + " size " + expectedSize);
        }
        if (header.cookie() != fid.cookie()) {
            throw ReadFailure.notFound("needle " + fid + ": cookie does not match");
        }
        long size = header.size();
        if (size == 0) { // an empty file: no data, no flags, nothing to checksum (the volume server answers 200 empty)
            return new VerifiedRecord(new NeedleStat(fid, 0, 0, "", "", 0, Map.of(), false, false, source), List.of());
        }
        long available = 0;
        for (ByteBuffer piece : pieces) {
            available += piece.limit();
        }
        header.checkFits(available, version, where, recordOffset);
        long dataLength = size;
        if (version != SuperBlock.VERSION_1) {
            dataLength = first.getInt(NeedleLayout.HEADER_SIZE) & 0xFFFF_FFFFL;
            NeedleLayout.checkDataSize(dataLength, size, where, recordOffset);
        }
        long dataStart = NeedleLayout.dataStart(size, version);
        long dataEnd = dataStart + dataLength;
        int metaLength = (int) NeedleLayout.metaLength(size, version, dataLength);
        long used = NeedleLayout.usedLength(size, version);

        NeedleChecksum crc = new NeedleChecksum();
        List<ByteBuffer> data;
        NeedleTail tail;
        if (pieces.size() == 1) { // the common case: data and tail read where they lie, nothing copied or listed
            ByteBuffer slice = first.slice((int) dataStart, (int) dataLength);
            crc.update(slice);
            data = dataLength == 0 ? List.of() : List.of(slice);
            tail = NeedleTail.parse(first, (int) dataEnd, metaLength, version, where, recordOffset);
        } else {
            data = new ArrayList<>(pieces.size());
            ByteBuffer tailBytes = ByteBuffer.allocate((int) (used - dataEnd));
            long pieceStart = 0;
            for (int i = 0; i < pieces.size(); i++) {
                ByteBuffer piece = pieces.get(i);
                long pieceEnd = pieceStart + piece.limit();
                long from = Math.max(pieceStart, dataStart);
                long to = Math.min(pieceEnd, dataEnd);
                if (from < to) {
                    ByteBuffer slice = piece.slice((int) (from - pieceStart), (int) (to - from));
                    crc.update(slice);
                    data.add(slice);
                }
                from = Math.max(pieceStart, dataEnd);
                to = Math.min(pieceEnd, used);
                if (from < to) {
                    tailBytes.put((int) (from - dataEnd), piece, (int) (from - pieceStart), (int) (to - from));
                }
                pieceStart = pieceEnd;
            }
            tail = NeedleTail.parse(tailBytes, 0, metaLength, version, where, recordOffset);
        }
        CrcState state = crc.judge(tail.checksum(), size);
        if (state == CrcState.BAD) {
            throw ReadFailure.corrupt("needle " + fid + " at " + recordOffset + " of " + where + ": stored checksum "
                    + String.format("%08x", tail.checksum()) + " matches neither form of the data's CRC-32C "
                    + String.format("%08x", crc.value()));
        }
        if (tail.expiredAt(version, clockMillis)) {
            throw ReadFailure.notFound("needle " + fid + ": ttl " + tail.meta().ttl() + " has expired");
        }
        NeedleMeta meta = tail.meta();
        NeedleStat stat = new NeedleStat(fid, dataLength, crc.value(), meta.name(), meta.mime(), meta.lastModified(),
                pairs(meta.pairs()), meta.isCompressed(), meta.isChunkManifest(), source);
        return new VerifiedRecord(stat, data);
    }

    /** The stored extra headers; SeaweedFS ignores pairs it cannot parse, and so does this. */
    private static Map<String, String> pairs(String json) {
        if (json.isEmpty()) {
            return Map.of();
        }
        try {
            Map<String, String> pairs = new LinkedHashMap<>();
            new JsonObject(json).forEach(e -> pairs.put(e.getKey(), String.valueOf(e.getValue())));
            return pairs;
        } catch (DecodeException | ClassCastException e) {
            return Map.of();
        }
    }
}
