package org.seaweedfs.rdma.sidecar.read;

import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.ReadFailure;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.NeedleChecksum;
import org.seaweedfs.rdma.volume.NeedleEncoder;
import org.seaweedfs.rdma.volume.NeedleLayout;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.Ttl;

class VerifiedRecordTest {

    private static final FileId FID = new FileId(5, 0x1234, 0xCAFEBABE);
    private static final long NOW = 1_700_000_000_000L;

    private static byte[] data(int n) {
        byte[] d = new byte[n];
        new Random(n).nextBytes(d);
        return d;
    }

    private static NewNeedle.Builder needle(byte[] data) {
        return NewNeedle.builder(FID.key(), FID.cookie(), data).name("a.txt").mime("text/plain")
                .lastModified(NOW / 1000).pairs("{\"X-A\":\"b\"}").appendAtNs(NOW * 1_000_000);
    }

    /** The encoded record cut into pieces of {@code pieceBytes} (the last shorter), like pooled chunks. */
    private static List<ByteBuffer> pieces(ByteBuffer record, int pieceBytes) {
        List<ByteBuffer> pieces = new ArrayList<>();
        for (int at = 0; at < record.limit(); at += pieceBytes) {
            int n = Math.min(pieceBytes, record.limit() - at);
            pieces.add(ByteBuffer.allocateDirect(n).put(record.slice(at, n)).clear());
        }
        return pieces;
    }

    private static byte[] joined(List<ByteBuffer> data) {
        int n = data.stream().mapToInt(ByteBuffer::remaining).sum();
        ByteBuffer all = ByteBuffer.allocate(n);
        data.forEach(d -> all.put(d.duplicate()));
        return all.array();
    }

    private static VerifiedRecord check(NewNeedle needle, int version, int pieceBytes, long now) {
        ByteBuffer record = NeedleEncoder.encode(needle, version);
        long size = NeedleEncoder.size(needle, version);
        return VerifiedRecord.check(FID, size, version, pieces(record, pieceBytes), () -> now, "rdma", "test", 8);
    }

    @ParameterizedTest
    @ValueSource(ints = {4096, 4099, 7, 16 + 4 + 1000, 1 << 20})
    void dataAndMetaSurviveAnyCutIntoPieces(int pieceBytes) {
        byte[] d = data(10_000);
        for (int version : new int[] {2, 3}) {
            VerifiedRecord r = check(needle(d).build(), version, Math.max(pieceBytes, 24), NOW);
            assertArrayEquals(d, joined(r.data()));
            NeedleStat s = r.stat();
            assertEquals(10_000, s.size());
            assertEquals(NeedleChecksum.of(d), s.crc());
            assertEquals("a.txt", s.name());
            assertEquals("text/plain", s.mime());
            assertEquals(NOW / 1000, s.lastModified());
            assertEquals(Map.of("X-A", "b"), s.pairs());
            assertEquals("rdma", s.source());
        }
    }

    @Test
    void legacyChecksumsAreAccepted() {
        byte[] d = data(100);
        VerifiedRecord r = check(needle(d).legacyChecksum(true).build(), 3, 4096, NOW);
        assertArrayEquals(d, joined(r.data()));
    }

    @Test
    void aFlippedDataByteIsCorruptNeverData() {
        NewNeedle n = needle(data(5000)).build();
        ByteBuffer record = NeedleEncoder.encode(n, 3);
        record.put(100, (byte) (record.get(100) ^ 1));
        ReadFailure f = assertThrows(ReadFailure.class, () -> VerifiedRecord.check(FID, NeedleEncoder.size(n, 3), 3,
                pieces(record, 1024), () -> NOW, "rdma", "test", 8));
        assertEquals(ReadFailure.Kind.CORRUPT, f.kind());
        assertEquals(502, f.code());
    }

    @Test
    void aWrongCookieIsNotFound() {
        NewNeedle n = NewNeedle.builder(FID.key(), FID.cookie() + 1, data(10)).build();
        ReadFailure f = assertThrows(ReadFailure.class, () -> check(n, 3, 4096, NOW));
        assertEquals(ReadFailure.Kind.NOT_FOUND, f.kind());
    }

    @Test
    void anotherKeyOrSizeIsAStaleLocation() {
        NewNeedle other = NewNeedle.builder(FID.key() + 1, FID.cookie(), data(10)).build();
        assertThrows(StaleLocation.class, () -> check(other, 3, 4096, NOW));
        NewNeedle n = needle(data(10)).build();
        ByteBuffer record = NeedleEncoder.encode(n, 3);
        assertThrows(StaleLocation.class, () -> VerifiedRecord.check(FID, NeedleEncoder.size(n, 3) + 8, 3,
                pieces(record, 4096), () -> NOW, "rdma", "test", 8));
    }

    @Test
    void anExpiredTtlIsNotFoundAndALiveOneIsServed() {
        NewNeedle n = needle(data(10)).ttl(Ttl.of(1, Ttl.MINUTE)).build();
        assertEquals(10, check(n, 3, 4096, NOW + 59_000).stat().size());
        ReadFailure f = assertThrows(ReadFailure.class, () -> check(n, 3, 4096, NOW + 60_000));
        assertEquals(ReadFailure.Kind.NOT_FOUND, f.kind());
        assertTrue(f.getMessage().contains("ttl"));
    }

    @Test
    void theClockIsReadOnlyForANeedleWithATtl() {
        NewNeedle plain = needle(data(10)).build();
        ByteBuffer record = NeedleEncoder.encode(plain, 3);
        assertEquals(10, VerifiedRecord.check(FID, NeedleEncoder.size(plain, 3), 3, pieces(record, 4096), () -> {
            throw new AssertionError("the clock was read for a needle without a ttl");
        }, "rdma", "test", 8).stat().size());
        NewNeedle expiring = needle(data(10)).ttl(Ttl.of(1, Ttl.MINUTE)).build();
        ByteBuffer ttlRecord = NeedleEncoder.encode(expiring, 3);
        AtomicInteger reads = new AtomicInteger();
        VerifiedRecord.check(FID, NeedleEncoder.size(expiring, 3), 3, pieces(ttlRecord, 4096), () -> {
            reads.incrementAndGet();
            return NOW;
        }, "rdma", "test", 8);
        assertEquals(1, reads.get());
    }

    @Test
    void aSizeZeroRecordIsAnEmptyFile() {
        NewNeedle n = NewNeedle.builder(FID.key(), FID.cookie(), new byte[0]).build();
        VerifiedRecord record = check(n, 3, 4096, NOW);
        assertEquals(0, record.stat().size());
        assertEquals("00000000", record.stat().etag());
        assertTrue(record.data().isEmpty());
    }

    @Test
    void aSizeZeroRecordOfAnotherCookieIsNotFound() {
        NewNeedle n = NewNeedle.builder(FID.key(), FID.cookie() ^ 1, new byte[0]).build();
        ReadFailure f = assertThrows(ReadFailure.class, () -> check(n, 3, 4096, NOW));
        assertEquals(ReadFailure.Kind.NOT_FOUND, f.kind());
    }

    @Test
    void aDataSizeBeyondTheBodyIsCorrupt() {
        NewNeedle n = needle(data(50)).build();
        ByteBuffer record = NeedleEncoder.encode(n, 3);
        record.putInt(NeedleLayout.HEADER_SIZE, 1 << 20);
        ReadFailure f = assertThrows(ReadFailure.class, () -> VerifiedRecord.check(FID, NeedleEncoder.size(n, 3), 3,
                pieces(record, 4096), () -> NOW, "rdma", "test", 8));
        assertEquals(ReadFailure.Kind.CORRUPT, f.kind());
    }
}
