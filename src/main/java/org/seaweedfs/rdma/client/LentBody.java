package org.seaweedfs.rdma.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import java.util.List;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.seaweedfs.rdma.sidecar.ByteChunks;

/**
 * A needle's body lent to a caller for the length of one call: a buffer over the read's own memory, not a copy,
 * which fails every use once {@link #takeBack() taken back} (before that memory goes back to its pool), so a caller
 * that keeps it gets an error, never another read's bytes. A body in several chunks (a needle larger than a read
 * buffer) is lent as one heap copy.
 */
final class LentBody {

    private final Buffer buffer;
    private final ByteBuf lent;

    private LentBody(Buffer buffer, ByteBuf lent) {
        this.buffer = buffer;
        this.lent = lent;
    }

    static LentBody of(List<Buffer> chunks) {
        if (chunks.size() != 1) {
            return new LentBody(ByteChunks.of(chunks).copy(), null);
        }
        ByteBuf lent = Unpooled.wrappedBuffer(VertxInternals.nioView(chunks.get(0)));
        return new LentBody(VertxInternals.wrap(lent), lent);
    }

    Buffer buffer() {
        return buffer;
    }

    /** Every use of the buffer fails from now on (its memory is not freed: the read's owner gives it back). */
    void takeBack() {
        if (lent != null) {
            lent.release();
        }
    }
}
