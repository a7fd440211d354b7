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
 */
public record VolumeInfo(long volumeId, String collection, int version, long epoch, long datSize, long idxPosition,
                         List<Segment> segments) {
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
        long previousEnd = 0;
        for (int i = 0; i < segments.size(); i++) {
            Segment segment = segments.get(i);
            String field = "VolumeInfo.segments[" + i + "]";
            if (segment.index() != i) {
                throw FieldCheck.bad(field + ".index", "must be " + i + ", got " + segment.index());
            }
            if (segment.fileOffset() < previousEnd) {
                throw FieldCheck.bad(field + ".fileOffset", "overlaps the previous segment");
            }
            if (segment.end() > datSize) {
                throw FieldCheck.bad(field, "ends at " + segment.end() + ", past datSize " + datSize);
            }
            previousEnd = segment.end();
        }
    }

    /** The segment holding the byte at {@code fileOffset} of the .dat, or null when none is mapped there. */
    public Segment segmentAt(long fileOffset) {
        int low = 0;
        int high = segments.size() - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            Segment segment = segments.get(mid);
            if (fileOffset < segment.fileOffset()) {
                high = mid - 1;
            } else if (fileOffset >= segment.end()) {
                low = mid + 1;
            } else {
                return segment;
            }
        }
        return null;
    }
}
