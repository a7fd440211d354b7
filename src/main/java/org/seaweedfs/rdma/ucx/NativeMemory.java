package org.seaweedfs.rdma.ucx;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.vertx.core.buffer.Buffer;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.openucx.jucx.UcxUtils;

/** Copies between Vert.x buffers and native memory that UCX reads or writes. */
final class NativeMemory {

    private NativeMemory() {
    }

    /** A pooled direct copy of the buffer's bytes (release it when UCX is done with it). */
    static ByteBuf directCopy(Buffer frame) {
        int length = frame.length();
        ByteBuf direct = PooledByteBufAllocator.DEFAULT.directBuffer(Math.max(length, 1));
        ByteBuf source = VertxInternals.byteBuf(frame);
        if (source != null) {
            direct.writeBytes(source, source.readerIndex(), length);
        } else {
            direct.writeBytes(frame.getBytes());
        }
        return direct;
    }

    static ByteBuf directBuffer(int length) {
        return PooledByteBufAllocator.DEFAULT.directBuffer(Math.max(length, 1));
    }

    /** Native address of the buffer's first readable byte (or of its start when empty). */
    static long address(ByteBuf direct) {
        if (direct.hasMemoryAddress()) {
            return direct.memoryAddress() + direct.readerIndex();
        }
        return UcxUtils.getAddress(direct.nioBuffer(direct.readerIndex(), direct.readableBytes()));
    }

    /** Native address of a direct buffer's storage start (position 0). */
    static long writeAddress(ByteBuf direct) {
        if (direct.hasMemoryAddress()) {
            return direct.memoryAddress();
        }
        return UcxUtils.getAddress(direct.nioBuffer(0, direct.capacity()));
    }

    /** A heap copy of {@code length} bytes of native memory. */
    static Buffer copyOut(long address, long length) {
        int n = (int) length;
        Buffer copy = Buffer.buffer(n);
        if (n > 0) {
            copy.setBytes(0, UcxUtils.getByteBufferView(address, n));
        }
        return copy;
    }
}
