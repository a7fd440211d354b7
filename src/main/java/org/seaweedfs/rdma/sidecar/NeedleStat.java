package org.seaweedfs.rdma.sidecar;

import io.netty.util.AsciiString;
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
        return new String(hexDigits(false), StandardCharsets.ISO_8859_1);
    }

    /**
     * The ETag header's value: the 8 digits in double quotes. Pre-encoded ASCII underneath, which the HTTP encoder
     * copies as it is (every HTTP answer sends it; a String would be built from the bytes, then encoded back to them).
     */
    public CharSequence quotedEtag() {
        return new AsciiString(hexDigits(true), false);
    }

    /** The CRC's 8 hex digits, optionally in quotes (no padding step, no format). */
    private byte[] hexDigits(boolean quoted) {
        int first = quoted ? 1 : 0;
        byte[] bytes = new byte[8 + 2 * first];
        if (quoted) {
            bytes[0] = '"';
            bytes[9] = '"';
        }
        for (int i = first + 7, v = crc; i >= first; i--, v >>>= 4) {
            bytes[i] = HEX[v & 0xf];
        }
        return bytes;
    }
}
