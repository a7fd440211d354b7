package org.seaweedfs.rdma.volume.ec;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ec_test.go's LocateData expectations, turned into (shard, offset in shard, length). */
class EcLayoutTest {

    private static final long GIB = 1L << 30;
    private static final long MIB = 1L << 20;
    private final EcLayout small = new EcLayout(10, 4, 10_000, 100);
    private final EcLayout real = EcLayout.standard();

    @Test
    void firstSmallBlockAfterOneLargeRow() {
        // TestLocateData: shard dat size large+1 -> one large row; offset 10*large is small block 0.
        assertEquals(List.of(new EcInterval(0, 10_000, 1)), small.locate(10_000 + 1, 10L * 10_000, 1));
    }

    @Test
    void spanFromLargeRowIntoSmallRows() {
        // TestLocateData's second case: must cover the whole range, large blocks first.
        long offset = 10L * 10_000 / 2 + 100;
        long length = 10L * 10_000 + 1 - offset;
        List<EcInterval> intervals = small.locate(10_000 + 1, offset, length);
        assertEquals(length, intervals.stream().mapToLong(EcInterval::length).sum());
        assertEquals(new EcInterval(5, 100, 10_000 - 100), intervals.get(0));
        assertEquals(new EcInterval(0, 10_000, 1), intervals.get(intervals.size() - 1));
    }

    @Test
    void realSizesSmallBlocksAfterTwoLargeRows() {
        // TestLocateData2: blocks 4..8 of small row 0, after 2 large rows.
        List<EcInterval> intervals = real.locate(3 * GIB - 1, 21479557912L, 4194339);
        assertEquals(List.of(
                new EcInterval(4, 2 * GIB + 527128, 521448),
                new EcInterval(5, 2 * GIB, MIB),
                new EcInterval(6, 2 * GIB, MIB),
                new EcInterval(7, 2 * GIB, MIB),
                new EcInterval(8, 2 * GIB, 527163)), intervals);
    }

    @Test
    void realSizesFarSmallBlock() {
        // TestLocateData3: small block 8876 = row 887, shard 6.
        assertEquals(List.of(new EcInterval(6, 2 * GIB + 887 * MIB + 912752, 112568)),
                real.locate(3 * GIB - 1, 30782909808L, 112568));
    }

    @Test
    void exactMultipleOfLargeRowsStaysLarge() {
        // TestLocateData_ExactMultiple_Issue8947: 3 GiB per shard = 3 large rows; 20 GiB is row 2, shard 0.
        assertEquals(List.of(new EcInterval(0, 2 * GIB, 1024)), real.locate(3 * GIB, 20 * GIB, 1024));
    }

    @Test
    void largeToSmallBoundaryNeverYieldsEmptyIntervals() {
        // TestLocateData_Issue8179.
        long shardSize = 259092;
        long largeArea = shardSize / 10_000 * 10 * 10_000;
        for (long offset = largeArea - 500; offset < largeArea + 500; offset++) {
            List<EcInterval> intervals = small.locate(shardSize, offset, 200);
            assertEquals(200, intervals.stream().mapToLong(EcInterval::length).sum());
            intervals.forEach(i -> assertTrue(i.length() > 0));
        }
    }

    @Test
    void customRowWidthFollowsTheEncoder() {
        EcLayout six = new EcLayout(6, 3, 10_000, 100);
        // one large row of 6 blocks, then small block 7 = row 1, shard 1.
        assertEquals(List.of(new EcInterval(1, 10_000 + 100 + 5, 10)), six.locate(10_001, 60_000 + 700 + 5, 10));
    }

    @Test
    void shardFileSizes() {
        assertEquals(3 * 10_000 + 3 * 100, small.shardFileSize(3 * 100_000 + 2001));
        assertEquals(0, small.shardFileSize(0));
        assertEquals(MIB, real.shardFileSize(8));
        assertEquals(GIB + MIB, EcLayout.of(2, 1).shardFileSize(2 * GIB + 5));
    }

    @Test
    void rejectsBadCounts() {
        assertThrows(IllegalArgumentException.class, () -> EcLayout.of(0, 4));
        assertThrows(IllegalArgumentException.class, () -> EcLayout.of(30, 3));
        assertThrows(IllegalArgumentException.class, () -> small.locate(1000, -1, 5));
    }
}
