package org.seaweedfs.rdma.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import java.util.List;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.seaweedfs.rdma.sidecar.ByteChunks;
import org.seaweedfs.rdma.sidecar.NeedleContent;

/**
 * A needle's body lent to a caller for the length of one call: a buffer over the read's own memory, not a copy,
 * which fails every use once {@link #takeBack() taken back} (before that memory goes back to its pool), so a caller
 * that keeps it gets an error, never another read's bytes. Content that revokes its own chunks when released lends
 * them as they are, taken back by that release; other content is lent through a buffer of its own, released here. A
 * body in several chunks (a needle larger than a read buffer) is lent as one heap copy.
 */
final class LentBody {

    private final Buffer buffer;
    private final ByteBuf lent;

    private LentBody(Buffer buffer, ByteBuf lent) {
        this.buffer = buffer;
        this.lent = lent;
    }

    /** The body of {@code content}, taken back at the latest when the content is released. */
    static LentBody of(NeedleContent content) {
        List<Buffer> chunks = content.chunks();
        if (chunks.size() != 1) {
            return new LentBody(ByteChunks.of(chunks).copy(), null);
        }
        if (content.releaseRevokesChunks()) {
            return new LentBody(chunks.get(0), null);
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
