package org.seaweedfs.rdma.volume.ec;

import org.junit.jupiter.api.Test;

import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SeaweedFS's own pinned {@code .ecsum} bytes read back. */
class EcChecksumsTest {

    /**
     * The exact on-disk bytes SeaweedFS pins for its cross-binary interop test: {@code canonicalInteropHex} in
     * weed/storage/erasure_coding/ec_bitrot_interop_test.go (github.com/seaweedfs/seaweedfs at
     * cc8364a03ebf5cf9f8eab3315ded2000cd07fff6). A 10 + 4 manifest with entries for shards 0 and 1 only (1 MiB
     * each, CRCs 0x01020304 and 0x05060708), block size 16 MiB, a fixed encode UUID.
     */
    private static final String UPSTREAM_INTEROP_HEX = "45435355000100000039cc1b826a080110808080082204080a10042a0a"
            + "108080401a04040302012a0c0801108080401a04080706053210000102030405060708090a0b0c0d0e0f";

    @Test
    void upstreamsPinnedFileParsesToItsManifestWhichLacksTwelveShards() {
        byte[] bytes = HexFormat.of().parseHex(UPSTREAM_INTEROP_HEX);
        EcChecksums.Loaded loaded = EcChecksums.parse(bytes, "interop.ecsum", 0, 10, 4);
        // Header, payload checksum and protobuf all read; SeaweedFS's validation refuses it as incomplete too.
        assertEquals(EcChecksums.Status.INVALID, loaded.status());
        assertTrue(loaded.reason().contains("2 shard entries, the layout has 14 shards"), loaded.reason());
        assertEquals(EcChecksums.Status.OFF, EcChecksums.parse(bytes, "interop.ecsum", 3, 10, 4).status(),
                "generation 0's file, asked for generation 3");
        assertEquals(EcChecksums.Status.OFF, EcChecksums.parse(bytes, "interop.ecsum", 0, 12, 4).status(),
                "made for 10 + 4");
        bytes[5] = 2;
        assertTrue(EcChecksums.parse(bytes, "interop.ecsum", 0, 10, 4).reason().contains("format version 2"));
    }
}
