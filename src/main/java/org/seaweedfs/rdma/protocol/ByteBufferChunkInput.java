package org.seaweedfs.rdma.protocol;

import java.nio.ByteBuffer;
import org.msgpack.core.buffer.MessageBuffer;
import org.msgpack.core.buffer.MessageBufferInput;

/**
 * Feeds msgpack from a direct ByteBuffer through a small heap chunk. msgpack-core wraps direct buffers through
 * sun.nio.ch.DirectBuffer, which Java 17 does not export (IllegalAccessError), and UCX delivers frames in direct
 * memory; copying through a reused chunk avoids both the failure and a frame-sized allocation.
 */
final class ByteBufferChunkInput implements MessageBufferInput {
    private static final int CHUNK_BYTES = 8192;

    private final ByteBuffer source;
    private final byte[] chunk;

    /** @param source read from its position to its limit; the caller's buffer is not moved */
    ByteBufferChunkInput(ByteBuffer source) {
        this.source = source.duplicate();
        this.chunk = new byte[Math.max(1, Math.min(CHUNK_BYTES, source.remaining()))];
    }

    @Override
    public MessageBuffer next() {
        if (!source.hasRemaining()) {
            return null;
        }
        int n = Math.min(chunk.length, source.remaining());
        source.get(chunk, 0, n);
        return MessageBuffer.wrap(chunk, 0, n);
    }

    @Override
    public void close() {
    }
}
