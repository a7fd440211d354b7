package org.seaweedfs.rdma.sidecar;

import java.util.Map;
import org.seaweedfs.rdma.volume.FileId;

/**
 * A needle's metadata as the APIs present it.
 *
 * @param size          data length in bytes, as stored (compressed length when compressed)
 * @param crc           CRC-32C of the stored data (the ETag), already verified
 * @param lastModified  unix seconds, 0 when unset
 * @param pairs         extra HTTP headers stored with the needle (empty when none)
 * @param source        which path served it: a {@link ReadPath#wire} name
 */
public record NeedleStat(
        FileId fid,
        long size,
        int crc,
        String name,
        String mime,
        long lastModified,
        Map<String, String> pairs,
        boolean compressed,
        boolean chunkManifest,
        String source) {

    public NeedleStat {
        name = name == null ? "" : name;
        mime = mime == null ? "" : mime;
        pairs = pairs == null ? Map.of() : Map.copyOf(pairs);
    }

    /** ETag value without quotes: 8 lowercase hex digits of the CRC. */
    public String etag() {
        // Hot path (every answer's ETag): String.format costs more than the rest of the headers together.
        String hex = Integer.toHexString(crc);
        return hex.length() == 8 ? hex : "0".repeat(8 - hex.length()) + hex;
    }
}
