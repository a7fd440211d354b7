package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.ucx.SigbusGuard;
import io.vertx.core.Context;
import io.vertx.core.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.HashSet;
import java.util.Set;

/**
 * Takes and gives back the memory segments are served from: read-only file mappings registered with UCX, or copies
 * in UCX-allocated memory within {@code agent.volumeMemoryLimit} (every byte allocated counts, spare tail capacity
 * and retired copies included, until freed). Copying reads the file with blocking positional reads, so it runs on
 * the agent's worker context and refuses an event loop. Confined to the agent's context; the bytes held are
 * published to {@link AgentMetrics} for any thread.
 */
final class SegmentMemory {

    private static final Logger log = LoggerFactory.getLogger(SegmentMemory.class);

    private final UcxWorkerVerticle ucx;
    private final VolumeMemory kind;
    private final long limit;
    private final long segmentBytes;
    private final AgentMetrics metrics;
    private final Set<Long> warned = new HashSet<>();
    private long held;
    /** The agent is stopping: registrations are left to the UCX worker's own stop ({@link #leaveToWorker}). */
    private boolean leftToWorker;

    /** @param segmentBytes {@link DatSegments#SEGMENT_BYTES}; less only in tests ({@link AgentVerticle}) */
    SegmentMemory(UcxWorkerVerticle ucx, VolumeMemory kind, long limit, long segmentBytes, AgentMetrics metrics) {
        this.ucx = ucx;
        this.kind = kind;
        this.limit = limit;
        this.segmentBytes = segmentBytes;
        this.metrics = metrics;
    }

    /** The size of every segment but a file's last. */
    long segmentBytes() {
        return segmentBytes;
    }

    /** Whether volumes are to be served from copies (agent.volumeMemory: ucx). */
    boolean copies() {
        return kind == VolumeMemory.UCX;
    }

    /**
     * Reserves {@code bytes} of UCX memory for copies of a volume; when they would exceed the limit, refuses and
     * warns (once per volume) that the volume is served mapped.
     */
    boolean reserve(long volumeId, String volume, long bytes) {
        if (held + bytes <= limit) {
            add(bytes);
            return true;
        }
        if (warned.add(volumeId)) {
            log.warn("Volume " + volume + ": serving its bytes from the file mapping from here on, not UCX copies: "
                    + bytes + " more bytes of copies would exceed agent.volumeMemoryLimit (" + limit + " bytes, "
                    + held + " held). Same-host sidecars read mapped memory over emulated TCP lanes, at agent CPU per"
                    + " read; raise agent.volumeMemoryLimit (the host needs that much RAM) to serve it from shared"
                    + " memory. Said once per volume");
        }
        return false;
    }

    /**
     * Allocates {@code length} bytes of UCX memory that hold no volume bytes (a volume's exposed needle index, a few
     * bytes a needle): not counted in {@code agent.volumeMemoryLimit}, which bounds copies of volumes. Released like a
     * copy ({@link #release}).
     */
    Future<ServedSegment> allocate(String what, long length) {
        if (length > Integer.MAX_VALUE) {
            return Future.failedFuture(new IOException(what + ": " + length + " bytes is more than one UCX allocation"
                    + " holds here (2 GiB)"));
        }
        return ucx.allocate((int) length).transform(allocated -> allocated.failed()
                ? Future.failedFuture(new IOException(what + ": allocating " + length + " bytes of UCX memory failed: "
                        + allocated.cause().getMessage(), allocated.cause()))
                : Future.succeededFuture(ServedSegment.uncounted(allocated.result())));
    }

    /** Gives back a reservation that was never allocated. */
    void unreserve(long bytes) {
        add(-bytes);
    }

    /** Maps and registers the file's bytes [at, at + length). */
    Future<ServedSegment> map(FileChannel dat, String source, long at, long length) {
        MappedByteBuffer mapping;
        try {
            mapping = dat.map(FileChannel.MapMode.READ_ONLY, at, length);
        } catch (IOException | RuntimeException e) {
            return Future.failedFuture(new IOException(source + ": mapping bytes " + at + ".." + (at + length)
                    + " failed: " + e.getMessage(), e));
        }
        return ucx.register(mapping)
                .<ServedSegment>map(region -> {
                    SigbusGuard.register(region.address(), length);
                    return ServedSegment.mapped(at, mapping, region);
                })
                .recover(e -> Future.failedFuture(new IOException(source + ": registering bytes " + at + ".."
                        + (at + length) + " with UCX failed: " + e.getMessage(), e)));
    }

    /**
     * Allocates {@code capacity} reserved bytes of UCX memory and copies the file's bytes [at, at + length) into
     * them. On failure the memory and the reservation are given back.
     */
    Future<ServedSegment> copy(FileChannel dat, String source, long at, long length, long capacity) {
        return ucx.allocate(Math.toIntExact(capacity)).transform(allocated -> {
            if (allocated.failed()) {
                unreserve(capacity);
                return Future.failedFuture(new IOException(source + ": allocating " + capacity
                        + " bytes of UCX memory for bytes " + at + ".." + (at + length) + " failed: "
                        + allocated.cause().getMessage(), allocated.cause()));
            }
            ServedSegment segment = ServedSegment.copied(at, 0, allocated.result());
            try {
                fill(dat, source, segment, at + length);
                return Future.succeededFuture(segment.extendedTo(length));
            } catch (IOException | RuntimeException e) {
                release(segment);
                return Future.failedFuture(e);
            }
        });
    }

    /**
     * Copies the file's bytes [segment.end(), to) into the copy's spare capacity, behind what is served: readers see
     * them only once a segment {@link ServedSegment#extendedTo extended} over them is published.
     */
    void fill(FileChannel dat, String source, ServedSegment segment, long to) throws IOException {
        if (Context.isOnEventLoopThread()) {
            throw new IllegalStateException("copying volume bytes blocks; it must run on the agent's worker context");
        }
        ByteBuffer into = segment.bytes().duplicate();
        into.limit((int) (to - segment.fileOffset())).position((int) segment.length());
        try {
            while (into.hasRemaining()) {
                if (dat.read(into, segment.fileOffset() + into.position()) < 0) {
                    throw new EOFException("the file ends at " + dat.size());
                }
            }
        } catch (IOException e) {
            throw new IOException(source + ": copying bytes " + segment.end() + ".." + to + " into UCX memory failed: "
                    + e.getMessage(), e);
        }
    }

    /**
     * Deregisters (and for a copy, frees) the segment's memory now; once the agent is stopping, leaves that to the UCX
     * worker ({@link #leaveToWorker}).
     */
    Future<Void> release(ServedSegment segment) {
        if (segment.isCopy() && segment.counted()) {
            unreserve(segment.capacity());
        } else {
            SigbusGuard.unregister(segment.region().address());
        }
        return leftToWorker ? Future.succeededFuture() : ucx.deregister(segment.region());
    }

    /**
     * The agent is stopping, and its UCX worker stops after it: from now on {@link #release} leaves each registration
     * to the worker, which deregisters (and frees) what is left only after it has served its peers until they are
     * quiet. A sidecar's event-loop lanes reach the worker by its address, not through the agent's channels, so
     * their emulated gets still arrive after the agent closed its channels, and UCX copies a get's bytes from its
     * address unchecked: memory freed before the worker stops would be read freed.
     */
    void leaveToWorker() {
        leftToWorker = true;
    }

    /** Bytes of UCX memory held for copies, spare capacity and retired copies included. */
    long held() {
        return held;
    }

    private void add(long bytes) {
        held += bytes;
        metrics.volumeCopyBytes(held);
    }
}
