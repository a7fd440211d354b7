package org.seaweedfs.rdma.sidecar;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import org.seaweedfs.rdma.volume.FileId;

/**
 * Where the APIs (HTTP, event bus) get needles from. Implementations complete every future on the
 * caller's Vert.x context and fail with {@link ReadFailure} (which carries an HTTP-like code).
 */
public interface NeedleSource {

    /** Metadata only (the record is still read and its checksum verified). */
    Future<NeedleStat> stat(FileId fid);

    /**
     * The whole needle as stored (compressed bytes stay compressed), its checksum verified.
     * The caller must {@link NeedleContent#release()} it once the bytes are written out.
     */
    Future<NeedleContent> read(FileId fid);

    /**
     * As {@link #read(FileId)}, with the volume server a client named (the {@code weed mount} contract's
     * {@code volume_server}), which a fallback may try first. The default ignores the hint.
     */
    default Future<NeedleContent> read(FileId fid, String volumeServerHint) {
        return read(fid);
    }

    /**
     * The whole plain bytes of each needle of {@code fids}, as {@link #readSlice readSlice(fid, null, 0, -1,
     * maxPlainBytes)} of each would answer: one future per fid, in order, each that needle's result alone. A source
     * that can serve many needles at once (one admission, one lookup of each agent, gets posted together) overrides
     * it; the default reads them one by one. Call it on a Vert.x context.
     */
    default List<Future<NeedleContent>> readMany(List<FileId> fids, long maxPlainBytes) {
        List<Future<NeedleContent>> reads = new ArrayList<>(fids.size());
        for (FileId fid : fids) {
            Future<NeedleContent> read;
            try {
                read = readSlice(fid, null, 0, -1, maxPlainBytes);
            } catch (RuntimeException e) {
                read = Future.failedFuture(e);
            }
            reads.add(read);
        }
        return reads;
    }

    /**
     * {@code length} bytes (-1: to the end) from {@code offset} of the needle's plain bytes (a gzip-stored
     * needle counts decompressed). The chunks hold only the slice; the stat describes the whole needle's plain
     * bytes (size: their length; compressed: false). Like a file read, a slice is cut short at the end, empty at
     * the end, and RANGE_NOT_SATISFIABLE beyond it ({@link ReadFailure#needleSize()} set when known).
     * The default reads the whole needle (verified) and cuts the slice, decompressing to at most
     * {@code maxPlainBytes}; a source that can fetch only the slice overrides it. Call it on a Vert.x context.
     */
    default Future<NeedleContent> readSlice(FileId fid, String volumeServerHint, long offset, long length,
                                            long maxPlainBytes) {
        Context context = Vertx.currentContext();
        if (context == null) {
            return Future.failedFuture(new IllegalStateException("readSlice must be called on a Vert.x context"));
        }
        return read(fid, volumeServerHint)
                .compose(whole -> NeedleSlice.ofPlain(context.owner(), whole, offset, length, maxPlainBytes));
    }
}
