package org.seaweedfs.rdma.sidecar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.volume.FileId;

class NeedleStatTest {

    private static NeedleStat stat(int crc) {
        return new NeedleStat(new FileId(1, 1, 1), 0, crc, null, null, 0, null, false, false, "rdma");
    }

    private static String etag(int crc) {
        return stat(crc).etag();
    }

    @Test
    void etagIsEightLowercaseHexDigits() {
        assertEquals("00000000", etag(0));
        assertEquals("0000abcd", etag(0xabcd));
        assertEquals("8f3e2a10", etag(0x8f3e2a10));
        assertEquals("ffffffff", etag(-1));
        for (int crc : new int[] {1, 0x10, 0x7fffffff, Integer.MIN_VALUE, 0x0a0b0c0d}) {
            assertEquals(String.format("%08x", crc), etag(crc));
        }
    }

    @Test
    void theHeaderValueIsTheSameDigitsInDoubleQuotes() {
        assertEquals("\"0000abcd\"", stat(0xabcd).quotedEtag().toString());
        for (int crc : new int[] {0, -1, 1, 0x7fffffff, Integer.MIN_VALUE, 0x8f3e2a10}) {
            assertEquals('"' + etag(crc) + '"', stat(crc).quotedEtag().toString());
        }
    }
}
