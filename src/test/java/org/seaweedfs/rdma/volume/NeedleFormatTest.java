package org.seaweedfs.rdma.volume;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Layout arithmetic, checksums, ttl, and incremental parsing of records in pieces. */
class NeedleFormatTest {

    @Test
    void paddingIsOneToEightNeverZero() {
        for (int version = 1; version <= 3; version++) {
            for (long size = 0; size < 64; size++) {
                int padding = NeedleLayout.padding(size, version);
                assertTrue(padding >= 1 && padding <= 8);
                assertEquals(0, NeedleLayout.recordLength(size, version) % 8);
            }
        }
        // v3, Size 4: 16 + 4 + 4 + 8 = 32, already aligned, so a full 8 bytes of padding.
        assertEquals(8, NeedleLayout.padding(4, 3));
        assertEquals(40, NeedleLayout.recordLength(4, 3));
        assertEquals(24, NeedleLayout.recordLength(0, 2));
        assertEquals(20, NeedleLayout.dataStart(10, 2));
        assertEquals(16, NeedleLayout.dataStart(0, 3));
        assertEquals(16, NeedleLayout.dataStart(10, 1));
        assertEquals(3, NeedleLayout.metaLength(10, 2, 3));
    }

    @Test
    void checksumFormsAndIncrementalUpdates() {
        byte[] data = "123456789".getBytes(StandardCharsets.US_ASCII);
        int crc = NeedleChecksum.of(data);
        assertEquals(0xe3069283, crc, "CRC-32C check value");
        int legacy = NeedleChecksum.legacyForm(crc);
        assertEquals((int) ((((crc & 0xFFFFFFFFL) >>> 15 | (crc & 0xFFFFFFFFL) << 17) + 0xa282ead8L) & 0xFFFFFFFFL),
                legacy);
        NeedleChecksum chunked = new NeedleChecksum().update(data, 0, 4).update(ByteBuffer.wrap(data, 4, 5));
        assertEquals(CrcState.RAW, chunked.judge(crc, 9));
        assertEquals(CrcState.LEGACY, chunked.judge(legacy, 9));
        assertEquals(CrcState.BAD, chunked.judge(crc + 1, 9));
        assertEquals(CrcState.EMPTY, chunked.judge(12345, 0));
        assertFalse(CrcState.BAD.isGood());
        assertEquals("legacy", CrcState.LEGACY.label());
    }

    @Test
    void ttlUnitsAndExpiry() {
        assertEquals(1, Ttl.of(1, Ttl.MINUTE).minutes());
        assertEquals(120, Ttl.of(2, Ttl.HOUR).minutes());
        assertEquals(3 * 1440, Ttl.of(3, Ttl.DAY).minutes());
        assertEquals(7 * 1440, Ttl.of(1, Ttl.WEEK).minutes());
        assertEquals(30 * 1440, Ttl.of(1, Ttl.MONTH).minutes());
        assertEquals(365 * 1440, Ttl.of(1, Ttl.YEAR).minutes());
        assertEquals(0, Ttl.decode((byte) 5, (byte) 9).minutes(), "unknown unit never expires, as in SeaweedFS");
        assertThrows(IllegalArgumentException.class, () -> Ttl.of(1, 7));
        long written = TimeUnit.MILLISECONDS.toNanos(1_000_000);
        Ttl ttl = Ttl.of(2, Ttl.MINUTE);
        assertFalse(ttl.expiredAt(written, 1_000_000 + 119_999));
        assertTrue(ttl.expiredAt(written, 1_000_000 + 120_000));
        assertFalse(Ttl.NONE.expiredAt(0, Long.MAX_VALUE));
    }

    @Test
    void expiryNeedsTheTtlAndTheLastModifiedFlag() {
        long appendNs = TimeUnit.SECONDS.toNanos(5_000);
        byte[] data = {1};
        NeedleRecord withDate =
                parse(NewNeedle.builder(1, 1,
                data).ttl(Ttl.of(1, Ttl.MINUTE)).lastModified(4_000).appendAtNs(appendNs).build(), 3);
        assertFalse(withDate.expiredAt(5_059_999));
        assertTrue(withDate.expiredAt(5_060_000), "v3 counts from appendAtNs");
        NeedleRecord v2 =
                parse(NewNeedle.builder(1, 1, data).ttl(Ttl.of(1, Ttl.MINUTE)).lastModified(4_000).build(), 2);
        assertTrue(v2.expiredAt(4_060_000), "v2 has no append time: counts from last-modified");
        NeedleRecord noDate =
                parse(NewNeedle.builder(1, 1, data).ttl(Ttl.of(1, Ttl.MINUTE)).appendAtNs(appendNs).build(), 3);
        assertFalse(noDate.expiredAt(Long.MAX_VALUE));
    }

    @Test
    void aRecordCanBeParsedInPiecesAsChunkedReadsArrive() {
        NewNeedle n =
                NewNeedle.builder(77, 88, new byte[10_000]).name("big.bin").mime("x/y").lastModified(1234).build();
        ByteBuffer record = NeedleEncoder.encode(n, 3);
        NeedleHeader header = NeedleHeader.parse(record, 0, "t", 0);
        long dataLength = record.getInt(NeedleLayout.HEADER_SIZE) & 0xFFFFFFFFL;
        int dataStart = NeedleLayout.dataStart(header.size(), 3);
        NeedleChecksum crc = new NeedleChecksum();
        for (int at = 0; at < dataLength; at += 4096) {
            crc.update(record.slice(dataStart + at, (int) Math.min(4096, dataLength - at)));
        }
        int dataEnd = (int) NeedleLayout.dataEnd(header.size(), 3, dataLength);
        int metaLength = (int) NeedleLayout.metaLength(header.size(), 3, dataLength);
        // The tail arrives in its own buffer.
        ByteBuffer tailBuffer = record.slice(dataEnd, metaLength + NeedleLayout.tailLength(3));
        NeedleTail tail = NeedleTail.parse(tailBuffer, 0, metaLength, 3, "t", 0);
        assertEquals("big.bin", tail.meta().name());
        assertEquals(1234, tail.meta().lastModified());
        assertEquals(CrcState.RAW, crc.judge(tail.checksum(), header.size()));
        assertEquals(NeedleLayout.checksumPosition(header.size()), dataEnd + metaLength);
    }

    @Test
    void metaFieldsAbsentAtTheEndOfTheBodyAreTreatedAsUnsetLikeSeaweedFs() {
        // flags announce a name, but the body ends right after the flags byte
        ByteBuffer meta = ByteBuffer.wrap(new byte[]{NeedleFlags.NAME});
        assertEquals("", NeedleMeta.parse(meta, 0, 1, "t", 0).name());
        // a name that starts but does not fit is corruption
        ByteBuffer torn = ByteBuffer.wrap(new byte[]{NeedleFlags.NAME, 9, 'a'});
        VolumeFormatException e =
                assertThrows(VolumeFormatException.class, () -> NeedleMeta.parse(torn, 0, 3, "x.dat", 64));
        assertEquals("x.dat at offset 64: name: needs 9 bytes but the needle body has 1 left", e.getMessage());
        assertEquals("name", e.field());
        assertEquals(64, e.offset());
    }

    private static NeedleRecord parse(NewNeedle n, int version) {
        return NeedleRecord.parse(NeedleEncoder.encode(n, version), 0, version, "t", 0);
    }
}
