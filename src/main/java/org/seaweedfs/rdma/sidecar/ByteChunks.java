package org.seaweedfs.rdma.sidecar;

import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;

/** Bytes in order over one or more buffers; slicing shares their memory, only {@link #copy()} copies. */
public record ByteChunks(List<Buffer> chunks, long length) {

    public ByteChunks {
        chunks = List.copyOf(chunks);
    }

    public static ByteChunks of(List<Buffer> chunks) {
        long length = 0;
        for (Buffer b : chunks) { // a loop, not a stream: this runs on every read
            length += b.length();
        }
        return new ByteChunks(chunks, length);
    }

    public static ByteChunks of(Buffer buffer) {
        return of(List.of(buffer));
    }

    /** {@code count} bytes from {@code offset}; both must lie within this. */
    public ByteChunks slice(long offset, long count) {
        if (offset < 0 || count < 0 || offset + count > length) {
            throw new IndexOutOfBoundsException("slice " + offset + "+" + count + " of " + length);
        }
        if (offset == 0 && count == length) {
            return this; // the whole: most reads
        }
        List<Buffer> out = new ArrayList<>();
        long skip = offset;
        long left = count;
        for (Buffer b : chunks) {
            if (left == 0) {
                break;
            }
            if (skip >= b.length()) {
                skip -= b.length();
                continue;
            }
            int start = (int) skip;
            int end = (int) Math.min(b.length(), start + left);
            out.add(start == 0 && end == b.length() ? b : b.slice(start, end));
            left -= end - start;
            skip = 0;
        }
        return new ByteChunks(out, count);
    }

    /** One heap buffer holding a copy (for consumers that outlive pooled memory). */
    public Buffer copy() {
        Buffer out = Buffer.buffer((int) length);
        chunks.forEach(out::appendBuffer);
        return out;
    }
}
