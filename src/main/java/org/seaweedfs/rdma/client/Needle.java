package org.seaweedfs.rdma.client;

import io.vertx.core.buffer.Buffer;

/**
 * A needle's bytes (or the slice asked for) and its metadata. The body is the caller's own heap buffer: nothing to
 * release, no pooled memory behind it.
 *
 * @param fid          the file id as asked for
 * @param body         the bytes (decompressed when the needle is stored gzipped)
 * @param etag         8 lowercase hex digits of the stored data's CRC-32C (verified)
 * @param contentType  the type the volume server would send ({@code application/octet-stream} when nothing says)
 * @param name         the stored file name, "" when none
 * @param lastModified unix seconds, 0 when unset
 * @param size         the whole needle's length in bytes (decompressed), whatever slice was read
 * @param source       {@code rdma} when RDMA served it, else {@code fallback}
 */
public record Needle(String fid, Buffer body, String etag, String contentType, String name, long lastModified,
                     long size, String source) {

    /** Whether an RDMA get served the bytes (not a fallback path). */
    public boolean viaRdma() {
        return "rdma".equals(source);
    }
}
