package org.seaweedfs.rdma.sidecar.read;

import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleStat;

import io.netty.buffer.Unpooled;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.seaweedfs.rdma.internals.VertxInternals;

/** A verified needle whose chunks wrap the memory it lies in (pooled, a peer's mapped here, or heap), uncopied. */
final class VerifiedNeedle implements NeedleContent {

    private final NeedleStat stat;
    private final List<Buffer> chunks;
    private final Runnable release;
    private final AtomicBoolean released = new AtomicBoolean();

    /** Heap data: nothing to return on {@link #release()}. */
    static final Runnable NOTHING_HELD = () -> { };

    /** @param release returns the memory the data lies in, run once by {@link #release()} */
    VerifiedNeedle(VerifiedRecord record, Runnable release) {
        this.stat = record.stat();
        List<ByteBuffer> data = record.data();
        if (data.size() == 1) { // the common case: one piece, no list to build
            this.chunks = List.of(VertxInternals.wrap(Unpooled.wrappedBuffer(data.get(0))));
        } else {
            List<Buffer> wrapped = new ArrayList<>(data.size());
            for (ByteBuffer slice : data) {
                wrapped.add(VertxInternals.wrap(Unpooled.wrappedBuffer(slice)));
            }
            this.chunks = List.copyOf(wrapped);
        }
        this.release = release;
    }

    /** The metadata of a read, its memory released at once (the record is still read and verified). */
    static Future<NeedleStat> statOnly(Future<NeedleContent> read) {
        return read.map(content -> {
            content.release();
            return content.stat();
        });
    }

    @Override
    public NeedleStat stat() {
        return stat;
    }

    @Override
    public List<Buffer> chunks() {
        return chunks;
    }

    @Override
    public void release() {
        if (released.compareAndSet(false, true)) {
            release.run();
        }
    }
}
