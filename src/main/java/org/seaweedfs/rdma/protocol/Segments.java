package org.seaweedfs.rdma.protocol;

import java.util.List;

/** Rules and search shared by the segment lists of a volume's {@code .dat} and of its EC shards. */
final class Segments {

    private Segments() {
    }

    /** Index equals position, file order, no overlap, none past {@code size}. */
    static void check(String field, List<Segment> segments, long size, String sizeName) {
        long previousEnd = 0;
        for (int i = 0; i < segments.size(); i++) {
            Segment segment = segments.get(i);
            String at = field + "[" + i + "]";
            if (segment.index() != i) {
                throw FieldCheck.bad(at + ".index", "must be " + i + ", got " + segment.index());
            }
            if (segment.fileOffset() < previousEnd) {
                throw FieldCheck.bad(at + ".fileOffset", "overlaps the previous segment");
            }
            if (segment.end() > size) {
                throw FieldCheck.bad(at, "ends at " + segment.end() + ", past " + sizeName + " " + size);
            }
            previousEnd = segment.end();
        }
    }

    /** The segment holding {@code fileOffset}, or null. */
    static Segment at(List<Segment> segments, long fileOffset) {
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
