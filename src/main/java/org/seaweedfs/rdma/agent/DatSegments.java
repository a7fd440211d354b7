package org.seaweedfs.rdma.agent;

import io.vertx.core.Future;
import org.seaweedfs.rdma.protocol.ProtocolLimits;
import org.seaweedfs.rdma.protocol.Segment;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code .dat} of one volume epoch as served segments: read-only mappings registered with UCX, or copies in
 * UCX-allocated memory (agent.volumeMemory). Segment {@code i} covers bytes [i·S, min((i+1)·S, served end)), S being
 * {@link #SEGMENT_BYTES}: every segment but the last is full, so a file offset finds its segment by division. Nothing
 * is ever served past the file's size as it was read before mapping or copying (SeaweedFS only appends, so bytes below
 * it are stable). When the file grows, a copied tail with spare capacity takes the new bytes in place (readers of the
 * shorter segment still read the same bytes); any other short tail is replaced by a larger one, and new segments
 * follow it.
 *
 * <p>Copies are decided per volume epoch: when the whole file fits {@code agent.volumeMemoryLimit} at open it is
 * copied, otherwise mapped. A copied epoch whose growth no longer fits keeps its copies and serves the growth mapped.
 * Confined to the agent's context; {@link #growTo} must not run twice at once (the follower calls it sequentially).
 */
final class DatSegments {

    /**
     * Bytes of one segment, every one but the last: 1 GiB, whole pages so every registration starts on a page
     * boundary, and below the 2 GiB Java 17 maps at a time. A volume's 32 GiB (offset4) is then 32 segments, each
     * one mapping, one registration and one remote key. (Some tests give {@link SegmentMemory} less.)
     */
    static final long SEGMENT_BYTES = 1L << 30;
    /** A growing copied tail gets at least this much room (or a whole segment), so small appends rarely re-copy. */
    private static final long MIN_TAIL_ROOM = 1 << 20;
    private static final long PAGE = 4096;

    private final FileChannel dat;
    private final long volumeId;
    private final String source;
    private final SegmentMemory memory;
    private final long segmentBytes;
    private boolean copying;
    private List<ServedSegment> segments = List.of();

    DatSegments(FileChannel dat, long volumeId, String source, SegmentMemory memory) {
        this.dat = dat;
        this.volumeId = volumeId;
        this.source = source;
        this.memory = memory;
        this.segmentBytes = memory.segmentBytes();
        this.copying = memory.copies();
    }

    /** Bytes of the file that are served: every read below this is servable. */
    long mappedEnd() {
        return segments.isEmpty() ? 0 : segments.get(segments.size() - 1).end();
    }

    List<ServedSegment> segments() {
        return segments;
    }

    /** File bytes served from UCX copies (the rest is mapped). */
    long copiedBytes() {
        return segments.stream().filter(ServedSegment::isCopy).mapToLong(ServedSegment::length).sum();
    }

    List<Segment> describe() {
        List<Segment> described = new ArrayList<>(segments.size());
        for (int i = 0; i < segments.size(); i++) {
            described.add(segments.get(i).toSegment(i));
        }
        return described;
    }

    /**
     * Serves the file up to {@code size} (its current length, read by the caller). Completes with the segments the
     * new ones replace (the old short tail), which the caller retires; on failure nothing served changes and whatever
     * was taken on the way is released again.
     */
    Future<List<ServedSegment>> growTo(long size) {
        long servedEnd = mappedEnd();
        if (size <= servedEnd) {
            return Future.succeededFuture(List.of());
        }
        boolean opening = segments.isEmpty();
        List<ServedSegment> kept = new ArrayList<>(segments);
        List<ServedSegment> replaced = new ArrayList<>(1);
        ServedSegment tail = kept.isEmpty() ? null : kept.get(kept.size() - 1);
        if (tail != null && tail.length() < segmentBytes) {
            long tailEnd = Math.min(tail.fileOffset() + segmentBytes, size);
            if (tail.capacity() >= tailEnd - tail.fileOffset()) {
                try {
                    memory.fill(dat, source, tail, tailEnd);
                } catch (IOException | RuntimeException e) {
                    return Future.failedFuture(e);
                }
                kept.set(kept.size() - 1, tail.extendedTo(tailEnd - tail.fileOffset()));
            } else {
                replaced.add(kept.remove(kept.size() - 1));
            }
        }
        long start = kept.isEmpty() ? 0 : kept.get(kept.size() - 1).end();
        long newSegments = (size - start + segmentBytes - 1) / segmentBytes;
        if (kept.size() + newSegments > ProtocolLimits.MAX_SEGMENTS) {
            return Future.failedFuture(new IOException(source + ": " + size + " bytes need "
                    + (kept.size() + newSegments) + " segments of " + segmentBytes + " bytes, more than the "
                    + ProtocolLimits.MAX_SEGMENTS + " a volume may have"));
        }
        List<Future<ServedSegment>> made = serve(start, size, opening);
        return Future.join(made).transform(done -> {
            if (done.failed()) {
                for (Future<ServedSegment> segment : made) {
                    if (segment.succeeded()) {
                        memory.release(segment.result());
                    }
                }
                return Future.failedFuture(done.cause());
            }
            made.forEach(segment -> kept.add(segment.result()));
            segments = List.copyOf(kept);
            return Future.succeededFuture(replaced);
        });
    }

    /** Segments for the file's bytes [start, size): copies while the volume's copies fit the limit, else mappings. */
    private List<Future<ServedSegment>> serve(long start, long size, boolean opening) {
        List<long[]> pieces = new ArrayList<>(); // {at, length, capacity}
        long reserve = 0;
        for (long at = start; at < size; at += segmentBytes) {
            long length = Math.min(segmentBytes, size - at);
            long capacity = length == segmentBytes || opening ? length : tailCapacity(length);
            pieces.add(new long[] {at, length, capacity});
            reserve += capacity;
        }
        if (copying && !memory.reserve(volumeId, source, reserve)) {
            copying = false;
        }
        List<Future<ServedSegment>> made = new ArrayList<>(pieces.size());
        for (long[] p : pieces) {
            made.add(copying ? memory.copy(dat, source, p[0], p[1], p[2]) : memory.map(dat, source, p[0], p[1]));
        }
        return made;
    }

    /** Room for a growing tail: twice what it holds (whole pages), at least MIN_TAIL_ROOM, at most a segment. */
    private long tailCapacity(long length) {
        long room = Math.max(2 * length, MIN_TAIL_ROOM);
        return Math.min(segmentBytes, (room + PAGE - 1) / PAGE * PAGE);
    }

    /** Copies served bytes [fileOffset, fileOffset + length) into {@code into} at {@code at}, across segments. */
    void copy(long fileOffset, byte[] into, int at, int length) {
        if (fileOffset < 0 || length < 0 || fileOffset > mappedEnd() - length) {
            throw new IndexOutOfBoundsException(source + ": bytes " + fileOffset + ".." + (fileOffset + length)
                    + " are not served (served end " + mappedEnd() + ")");
        }
        while (length > 0) {
            ServedSegment segment = segments.get((int) (fileOffset / segmentBytes));
            int within = (int) (fileOffset - segment.fileOffset());
            int n = (int) Math.min(length, segment.length() - within);
            segment.bytes().get(within, into, at, n);
            fileOffset += n;
            at += n;
            length -= n;
        }
    }
}
