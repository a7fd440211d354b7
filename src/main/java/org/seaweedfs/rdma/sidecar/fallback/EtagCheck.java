package org.seaweedfs.rdma.sidecar.fallback;

import java.util.Locale;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.NeedleChecksum;

/**
 * The CRC checks of a volume server's answer: its {@code ETag} is the CRC-32C of the stored data (legacy volume
 * servers may send the transformed form), so a whole body is checked against it and corrupt bytes are never
 * served. A missing or malformed ETag is treated as corrupt: nothing unverified is served.
 */
final class EtagCheck {

    private EtagCheck() {
    }

    /** @throws ReadFailure CORRUPT when the body's CRC-32C {@code crc} is not what {@code etag} says */
    static void verify(String server, FileId fid, String etag, int crc, long size) {
        int expected = crcOf(server, fid, etag);
        if (size == 0 ? expected != 0 && expected != crc : expected != crc && expected
                != NeedleChecksum.legacyForm(crc)) {
            throw ReadFailure.corrupt(String.format(Locale.ROOT,
                    "volume server %s sent %s with ETag %s but the body's CRC-32C is %08x", server, fid, etag, crc));
        }
    }

    /** The CRC an ETag names ({@code "8 hex"}, {@code W/} tolerated). */
    static int crcOf(String server, FileId fid, String etag) {
        if (etag == null) {
            throw ReadFailure.corrupt("volume server " + server + " sent " + fid + " without an ETag to verify");
        }
        String hex = etag.trim();
        if (hex.startsWith("W/")) {
            hex = hex.substring(2);
        }
        hex = hex.replace("\"", "");
        try {
            if (hex.isEmpty() || hex.length() > 8) {
                throw new NumberFormatException(hex);
            }
            return (int) Long.parseLong(hex, 16);
        } catch (NumberFormatException e) {
            throw ReadFailure.corrupt("volume server " + server + " sent " + fid + " with ETag " + etag
                    + ", not a CRC");
        }
    }
}
