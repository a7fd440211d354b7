package org.seaweedfs.rdma.sidecar;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.util.List;

/**
 * Part of a needle cut from its whole, verified content. The chunks hold only the slice (sharing the whole's
 * memory unless it was decompressed); the stat describes the whole needle in the form the offsets count, its size
 * being that form's length. Releasing the slice releases the whole.
 *
 * <p>Like a file read, a slice running past the end is cut short, one starting at the end is empty, and one
 * starting beyond it fails RANGE_NOT_SATISFIABLE ({@link ReadFailure#pastTheEnd}).
 */
public record NeedleSlice(NeedleStat stat, List<Buffer> chunks, NeedleContent whole) implements NeedleContent {

    public NeedleSlice {
        chunks = List.copyOf(chunks);
    }

    @Override
    public void release() {
        whole.release();
    }

    /**
     * {@code length} bytes (-1: to the end) from {@code offset} of the needle's plain bytes: a gzip-stored needle
     * is decompressed first, off the event loop and to at most {@code maxPlainBytes}.
     */
    public static Future<NeedleContent> ofPlain(Vertx vertx, NeedleContent whole, long offset, long length,
                                                long maxPlainBytes) {
        NeedleStat stat = whole.stat();
        if (!stat.compressed()) {
            return ofStored(whole, offset, length);
        }
        return NeedleInflater.inflate(vertx, ByteChunks.of(whole.chunks()), maxPlainBytes)
                .andThen(ar -> whole.release()) // the plain bytes are a copy
                .map(plain -> cut(new NeedleStat(stat.fid(), plain.length(), stat.crc(), stat.name(), stat.mime(),
                        stat.lastModified(), stat.pairs(), false, stat.chunkManifest(), stat.source()),
                        ByteChunks.of(plain), whole, offset, length));
    }

    /** {@code length} bytes (-1: to the end) from {@code offset} of the bytes as stored. */
    public static Future<NeedleContent> ofStored(NeedleContent whole, long offset, long length) {
        try {
            return Future.succeededFuture(cut(whole.stat(), ByteChunks.of(whole.chunks()), whole, offset, length));
        } catch (ReadFailure e) {
            whole.release();
            return Future.failedFuture(e);
        }
    }

    private static NeedleContent cut(NeedleStat stat, ByteChunks bytes, NeedleContent whole, long offset, long length) {
        if (offset > bytes.length()) {
            throw ReadFailure.pastTheEnd(offset, bytes.length());
        }
        long rest = bytes.length() - offset;
        long count = length < 0 ? rest : Math.min(length, rest);
        return new NeedleSlice(stat, bytes.slice(offset, count).chunks(), whole);
    }
}
