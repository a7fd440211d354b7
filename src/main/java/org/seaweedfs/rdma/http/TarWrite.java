package org.seaweedfs.rdma.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.seaweedfs.rdma.sidecar.NeedleContent;

/**
 * The next write of a tar stream. Headers, padding and error members go into a small direct buffer of its own; the
 * members' bytes are referenced where they lie (pooled read buffers, a same-host agent's memory mapped here), not
 * copied, so the socket gathers the write from all those places with one system call and the only copy of a needle's
 * bytes is the kernel's. The members are held until {@link #release()}, once the socket took the write.
 */
final class TarWrite {

    /** The header bytes not yet referenced by {@link #parts} begin here in {@link #headerMemory}. */
    private int cut;
    private long memberBytes;
    private final ByteBuf headerMemory;
    private final Buffer headers;
    /**
     * The write, in order: slices of {@link #headerMemory} and the members' chunks. Never consolidated (no component
     * limit: consolidating would copy the bytes this avoids copying), and never released itself: it owns nothing.
     */
    private final CompositeByteBuf parts =
            new CompositeByteBuf(PooledByteBufAllocator.DEFAULT, true, Integer.MAX_VALUE);
    private final List<NeedleContent> members = new ArrayList<>();

    /** @param headerBytes the header memory's first capacity (it grows when more is appended) */
    TarWrite(int headerBytes) {
        headerMemory = PooledByteBufAllocator.DEFAULT.directBuffer(headerBytes);
        headers = VertxInternals.wrap(headerMemory);
    }

    /** Where headers, padding and small bytes of the stream's own (error members, its end) are appended. */
    Buffer headers() {
        return headers;
    }

    /** Adds {@code member}'s bytes after the headers appended so far, and holds it until {@link #release()}. */
    void add(NeedleContent member) {
        cutHeaders();
        List<Buffer> chunks = member.chunks();
        for (int i = 0; i < chunks.size(); i++) {
            Buffer chunk = chunks.get(i);
            ByteBuf memory = VertxInternals.byteBuf(chunk);
            parts.addComponent(true, memory != null ? memory : Unpooled.wrappedBuffer(chunk.getBytes()));
            memberBytes += chunk.length();
        }
        members.add(member);
    }

    /** Members held. */
    int members() {
        return members.size();
    }

    /** Bytes this write holds so far. */
    long length() {
        return memberBytes + headerMemory.writerIndex();
    }

    /** The whole write as one buffer; nothing is appended afterwards. */
    Buffer buffer() {
        cutHeaders();
        return VertxInternals.wrap(parts);
    }

    /** Gives the header memory back and releases the members; returns how many members it released. */
    int release() {
        headerMemory.release();
        for (int i = 0; i < members.size(); i++) {
            members.get(i).release();
        }
        return members.size();
    }

    private void cutHeaders() {
        int end = headerMemory.writerIndex();
        if (end > cut) {
            parts.addComponent(true, headerMemory.slice(cut, end - cut));
            cut = end;
        }
    }
}
