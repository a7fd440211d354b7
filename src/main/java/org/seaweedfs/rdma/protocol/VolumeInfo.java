package org.seaweedfs.rdma.protocol;

import java.util.List;

/**
 * One served volume: what a sidecar needs to read its records with one-sided gets.
 *
 * @param volumeId    u32
 * @param collection  the SeaweedFS collection, empty for the default one (at most 256 bytes)
 * @param version     the super block's needle version, 1..3
 * @param epoch       u64 chosen by the agent; changes whenever the files are replaced (compaction) or reopened.
 *                    Offsets, segments and sync positions are only meaningful within one epoch.
 * @param datSize     bytes of the .dat the agent knows of
 * @param idxPosition bytes of the .idx the agent has applied (where an incremental sync continues)
 * @param segments    the registered mappings of the .dat, in file order, non-overlapping, none past datSize
 *                    (empty for an EC volume)
 * @param ec          null for a normal volume; for an erasure-coded one (version 2) its shard layout and the
 *                    shards this agent serves. Then {@code datSize} is the original {@code .dat}'s size (0 when
 *                    unknown) and {@code idxPosition} the length of its virtual index (.ecx entries, then one
 *                    tombstone per .ecj id)
 * @param file        the .dat as its host names it, for a reader on that host to map it (since protocol version 5);
 *                    null when not told (an EC volume, an older agent)
 */
public record VolumeInfo(long volumeId, String collection, int version, long epoch, long datSize, long idxPosition,
                         List<Segment> segments, EcInfo ec, ServedFile file) {
    public VolumeInfo {
        FieldCheck.u32("VolumeInfo.volumeId", volumeId);
        if (collection == null) {
            throw FieldCheck.bad("VolumeInfo.collection", "is required (empty for the default collection)");
        }
        FieldCheck.optionalText("VolumeInfo.collection", collection, ProtocolLimits.MAX_COLLECTION_BYTES);
        FieldCheck.range("VolumeInfo.version", version, 1, 3);
        FieldCheck.nonNegative("VolumeInfo.datSize", datSize);
        FieldCheck.nonNegative("VolumeInfo.idxPosition", idxPosition);
        FieldCheck.count("VolumeInfo.segments", segments, ProtocolLimits.MAX_SEGMENTS);
        segments = List.copyOf(segments);
        Segments.check("VolumeInfo.segments", segments, datSize, "datSize");
        if (ec != null && !segments.isEmpty()) {
            throw FieldCheck.bad("VolumeInfo.segments", "must be empty for an EC volume");
        }
        if (ec != null && file != null) {
            throw FieldCheck.bad("VolumeInfo.file", "must be nil for an EC volume");
        }
    }

    /** A volume whose file is not told. */
    public VolumeInfo(long volumeId, String collection, int version, long epoch, long datSize, long idxPosition,
                      List<Segment> segments, EcInfo ec) {
        this(volumeId, collection, version, epoch, datSize, idxPosition, segments, ec, null);
    }

    /** A normal (not erasure-coded) volume. */
    public VolumeInfo(long volumeId, String collection, int version, long epoch, long datSize, long idxPosition,
                      List<Segment> segments) {
        this(volumeId, collection, version, epoch, datSize, idxPosition, segments, null, null);
    }

    /** The segment holding the byte at {@code fileOffset} of the .dat, or null when none is mapped there. */
    public Segment segmentAt(long fileOffset) {
        return Segments.at(segments, fileOffset);
    }

    /**
     * Every segment a reader unpacks a remote key for, in order: the .dat's, then each EC shard's in shard order
     * (the key of EC shard segment {@code s} of the {@code k}-th listed shard is at {@code segments.size()} plus the
     * segments of the shards before it plus {@code s.index()}).
     */
    public List<Segment> keyedSegments() {
        if (ec == null) {
            return segments;
        }
        List<Segment> all = new java.util.ArrayList<>(segments);
        ec.shards().forEach(shard -> all.addAll(shard.segments()));
        return all;
    }
}
