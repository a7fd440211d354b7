package org.seaweedfs.rdma.sidecar;

import java.nio.charset.StandardCharsets;
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

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.ISO_8859_1);

    /** ETag value without quotes: 8 lowercase hex digits of the CRC. */
    public String etag() {
        // Every answer's ETag: eight digits written straight into the string's bytes (no padding step, no format).
        byte[] digits = new byte[8];
        for (int i = 7, v = crc; i >= 0; i--, v >>>= 4) {
            digits[i] = HEX[v & 0xf];
        }
        return new String(digits, StandardCharsets.ISO_8859_1);
    }
}
