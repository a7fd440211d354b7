package org.seaweedfs.rdma.sidecar;

import io.vertx.core.Future;
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
}
