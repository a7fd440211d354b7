package org.seaweedfs.rdma.agent;

import io.vertx.core.Future;
import org.seaweedfs.rdma.protocol.ProtocolLimits;
import org.seaweedfs.rdma.protocol.Segment;
import org.seaweedfs.rdma.ucx.UcxMemoryRegion;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code .dat} of one volume epoch as read-only mappings registered with UCX. Segment {@code i} covers bytes
 * [i·segmentBytes, min((i+1)·segmentBytes, mapped end)): every segment but the last is full, so a file offset finds
 * its segment by division. Nothing is ever mapped past the file's size as it was when mapped; when the file grows,
 * the short tail segment is mapped again, larger, and new segments follow it. Confined to the agent's context;
 * {@link #growTo} must not run twice at once (the follower calls it sequentially).
 */
final class DatSegments {

    private final FileChannel dat;
    private final String source;
    private final long segmentBytes;
    private final UcxWorkerVerticle ucx;
    private List<MappedSegment> segments = List.of();

    DatSegments(FileChannel dat, String source, long segmentBytes, UcxWorkerVerticle ucx) {
        this.dat = dat;
        this.source = source;
        this.segmentBytes = segmentBytes;
        this.ucx = ucx;
    }

    /** Bytes of the file that are mapped and registered: every read below this is servable. */
    long mappedEnd() {
        return segments.isEmpty() ? 0 : segments.get(segments.size() - 1).end();
    }

    List<MappedSegment> segments() {
        return segments;
    }

    List<Segment> describe() {
        List<Segment> described = new ArrayList<>(segments.size());
        for (int i = 0; i < segments.size(); i++) {
            described.add(segments.get(i).toSegment(i));
        }
        return described;
    }

    /**
     * Maps and registers the file up to {@code size} (its current length, read by the caller). Completes with the
     * segments the new ones replace (the old short tail), which the caller retires; on failure nothing changes and
     * whatever was registered on the way is released again.
     */
    Future<List<MappedSegment>> growTo(long size) {
        long mappedEnd = mappedEnd();
        if (size <= mappedEnd) {
            return Future.succeededFuture(List.of());
        }
        List<MappedSegment> kept = new ArrayList<>(segments);
        List<MappedSegment> replaced = new ArrayList<>(1);
        if (!kept.isEmpty() && kept.get(kept.size() - 1).length() < segmentBytes) {
            replaced.add(kept.remove(kept.size() - 1));
        }
        long start = replaced.isEmpty() ? mappedEnd : replaced.get(0).fileOffset();
        long newSegments = (size - start + segmentBytes - 1) / segmentBytes;
        if (kept.size() + newSegments > ProtocolLimits.MAX_SEGMENTS) {
            return Future.failedFuture(new IOException(source + ": " + size + " bytes need "
                    + (kept.size() + newSegments) + " segments of " + segmentBytes + " bytes, more than the "
                    + ProtocolLimits.MAX_SEGMENTS + " a volume may have; raise agent.segmentBytes"));
        }
        List<Long> offsets = new ArrayList<>();
        List<MappedByteBuffer> mappings = new ArrayList<>();
        try {
            for (long at = start; at < size; at += segmentBytes) {
                offsets.add(at);
                mappings.add(dat.map(FileChannel.MapMode.READ_ONLY, at, Math.min(segmentBytes, size - at)));
            }
        } catch (IOException | RuntimeException e) {
            return Future.failedFuture(new IOException(source + ": mapping bytes " + start + ".." + size
                    + " failed: " + e.getMessage(), e));
        }
        List<Future<UcxMemoryRegion>> registrations = new ArrayList<>(mappings.size());
        for (MappedByteBuffer mapping : mappings) {
            registrations.add(ucx.register(mapping));
        }
        return Future.join(registrations).transform(done -> {
            if (done.failed()) {
                for (Future<UcxMemoryRegion> registration : registrations) {
                    if (registration.succeeded()) {
                        ucx.deregister(registration.result());
                    }
                }
                return Future.failedFuture(new IOException(source + ": registering bytes " + start + ".." + size
                        + " with UCX failed: " + done.cause().getMessage(), done.cause()));
            }
            for (int i = 0; i < mappings.size(); i++) {
                kept.add(new MappedSegment(offsets.get(i), mappings.get(i), registrations.get(i).result()));
            }
            segments = List.copyOf(kept);
            return Future.succeededFuture(replaced);
        });
    }

    /** Copies mapped bytes [fileOffset, fileOffset + length) into {@code into} at {@code at}, across segments. */
    void copy(long fileOffset, byte[] into, int at, int length) {
        if (fileOffset < 0 || length < 0 || fileOffset > mappedEnd() - length) {
            throw new IndexOutOfBoundsException(source + ": bytes " + fileOffset + ".." + (fileOffset + length)
                    + " are not mapped (mapped end " + mappedEnd() + ")");
        }
        while (length > 0) {
            MappedSegment segment = segments.get((int) (fileOffset / segmentBytes));
            int within = (int) (fileOffset - segment.fileOffset());
            int n = (int) Math.min(length, segment.length() - within);
            segment.mapping().get(within, into, at, n);
            fileOffset += n;
            at += n;
            length -= n;
        }
    }
}
