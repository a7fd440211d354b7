package org.seaweedfs.rdma.sidecar.read;

import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleStat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.seaweedfs.rdma.internals.VertxInternals;

/**
 * A verified needle whose chunks wrap the memory it lies in (pooled, a peer's mapped here, or heap), uncopied.
 * Releasing it releases those wrappers before the memory goes back, so a chunk used afterwards throws instead of
 * showing whatever that memory holds next.
 */
final class VerifiedNeedle implements NeedleContent {

    private static final AtomicIntegerFieldUpdater<VerifiedNeedle> RELEASED =
            AtomicIntegerFieldUpdater.newUpdater(VerifiedNeedle.class, "released");

    private final NeedleStat stat;
    private final List<Buffer> chunks;
    /** The chunks' own buffers, which nothing else releases (a Vert.x buffer hands out unreleasable views). */
    private final ByteBuf[] wrappers;
    private final Runnable release;
    private volatile int released;

    /** Heap data: nothing to return on {@link #release()}. */
    static final Runnable NOTHING_HELD = () -> { };

    /** @param release returns the memory the data lies in, run once by {@link #release()} */
    VerifiedNeedle(VerifiedRecord record, Runnable release) {
        this.stat = record.stat();
        List<ByteBuffer> data = record.data();
        this.wrappers = new ByteBuf[data.size()];
        if (data.size() == 1) { // the common case: one piece, no list to build
            wrappers[0] = Unpooled.wrappedBuffer(data.get(0));
            this.chunks = List.of(VertxInternals.wrap(wrappers[0]));
        } else {
            List<Buffer> wrapped = new ArrayList<>(data.size());
            for (int i = 0; i < wrappers.length; i++) {
                wrappers[i] = Unpooled.wrappedBuffer(data.get(i));
                wrapped.add(VertxInternals.wrap(wrappers[i]));
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
        if (RELEASED.compareAndSet(this, 0, 1)) {
            for (ByteBuf wrapper : wrappers) {
                wrapper.release(); // a wrapper frees nothing: the memory is given back below
            }
            release.run();
        }
    }

    @Override
    public boolean releaseRevokesChunks() {
        return true;
    }
}
