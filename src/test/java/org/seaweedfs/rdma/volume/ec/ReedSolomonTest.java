package org.seaweedfs.rdma.volume.ec;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ReedSolomonTest {

    @Test
    void knownVectorOfTheVandermondeConstruction() {
        // The published 5+5 example of Backblaze's JavaReedSolomon, whose matrix construction is klauspost's.
        ReedSolomon rs = new ReedSolomon(5, 5);
        byte[][] shards =
                {{0, 1}, {4, 5}, {2, 3}, {6, 7}, {8, 9}, new byte[2], new byte[2], new byte[2], new byte[2],
                new byte[2]};
        rs.encodeParity(shards, 0, 2);
        assertArrayEquals(new byte[]{12, 13}, shards[5]);
        assertArrayEquals(new byte[]{10, 11}, shards[6]);
        assertArrayEquals(new byte[]{14, 15}, shards[7]);
        assertArrayEquals(new byte[]{90, 91}, shards[8]);
        assertArrayEquals(new byte[]{94, 95}, shards[9]);
    }

    @Test
    void fieldArithmetic() {
        assertEquals(0x1d, Galois.multiply(0x80, 2), "x^8 reduces by 0x11d");
        for (int a = 1; a < 256; a++) {
            assertEquals(1, Galois.multiply(a, Galois.divide(1, a)));
        }
        assertEquals(1, Galois.power(0, 0));
        assertEquals(0, Galois.power(0, 3));
    }

    @Test
    void dataShardsAreStoredUnchanged() {
        ReedSolomon rs = new ReedSolomon(10, 4);
        for (int r = 0; r < 10; r++) {
            for (int c = 0; c < 10; c++) {
                assertEquals(r == c ? 1 : 0, rs.coefficient(r, c));
            }
        }
    }

    @Test
    void everyErasurePatternOfTenPlusFourRebuilds() {
        ReedSolomon rs = new ReedSolomon(10, 4);
        int len = 37;
        byte[][] original = encoded(rs, len, 7);
        int patterns = 0;
        for (int mask = 1; mask < 1 << 14; mask++) {
            if (Integer.bitCount(mask) > 4) {
                continue;
            }
            byte[][] damaged = new byte[14][];
            boolean[] present = new boolean[14];
            for (int i = 0; i < 14; i++) {
                present[i] = (mask & (1 << i)) == 0;
                damaged[i] = present[i] ? original[i].clone() : new byte[len];
            }
            rs.reconstruct(damaged, present, 0, len);
            for (int i = 0; i < 14; i++) {
                assertArrayEquals(original[i], damaged[i], "shard " + i + " with erasures "
                        + Integer.toBinaryString(mask));
            }
            patterns++;
        }
        assertEquals(14 + 91 + 364 + 1001, patterns, "every pattern of 1..4 erasures");
    }

    @Test
    void dataOnlyReconstructionLeavesAbsentParityAlone() {
        ReedSolomon rs = new ReedSolomon(6, 3);
        byte[][] original = encoded(rs, 64, 3);
        byte[][] shards = new byte[9][];
        boolean[] present = new boolean[9];
        int[] use = {1, 2, 4, 5, 6, 8};
        for (int i : use) {
            shards[i] = original[i].clone();
            present[i] = true;
        }
        shards[0] = new byte[64];
        shards[3] = new byte[64];
        rs.reconstructData(shards, present, 0, 64);
        assertArrayEquals(original[0], shards[0]);
        assertArrayEquals(original[3], shards[3]);
    }

    @Test
    void tooFewShardsIsRefused() {
        ReedSolomon rs = new ReedSolomon(4, 2);
        byte[][] shards = encoded(rs, 8, 1);
        boolean[] present = {true, false, false, false, true, true};
        assertThrows(IllegalArgumentException.class, () -> rs.reconstruct(shards, present, 0, 8));
        assertThrows(IllegalArgumentException.class, () -> new ReedSolomon(0, 2));
    }

    private static byte[][] encoded(ReedSolomon rs, int len, long seed) {
        Random random = new Random(seed);
        byte[][] shards = new byte[rs.totalShards()][len];
        for (int i = 0; i < rs.dataShards(); i++) {
            random.nextBytes(shards[i]);
        }
        rs.encodeParity(shards, 0, len);
        return shards;
    }
}
