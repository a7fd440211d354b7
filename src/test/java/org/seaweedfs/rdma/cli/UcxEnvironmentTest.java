package org.seaweedfs.rdma.cli;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UcxEnvironmentTest {

    /** UCX 1.13's shared-memory FIFO element keeps a fragment's length in 16 bits (uct_mm_fifo_element.length). */
    private static final long MM_FRAGMENT_LENGTH_LIMIT = 0xFFFF;

    @Test
    void sharedMemoryFragmentsAreLargerThanUcxsDefaultYetFitItsSixteenBitLength() {
        for (String key : new String[] {"UCX_SYSV_SEG_SIZE", "UCX_POSIX_SEG_SIZE"}) {
            long bytes = memoryUnits(UcxEnvironment.REQUIRED.get(key));
            assertTrue(bytes > 8256, key + " is UCX's default or less: " + bytes);
            // a fragment is the segment's payload plus UCX's headers: 64 KiB arrives as length 0 and UCX aborts
            assertTrue(bytes + 1024 < MM_FRAGMENT_LENGTH_LIMIT, key + " does not fit 16 bits: " + bytes);
        }
    }

    @Test
    void onlyTheVariablesMissingFromTheEnvironmentAreAddedAndAnOperatorsOwnValueWins() {
        Map<String, String> missing = UcxEnvironment.missing(Map.of("UCX_SYSV_SEG_SIZE", "16k"));
        assertTrue(!missing.containsKey("UCX_SYSV_SEG_SIZE"), missing.toString());
        assertEquals("32k", missing.get("UCX_POSIX_SEG_SIZE"));
    }

    private static long memoryUnits(String value) {
        String v = value.trim().toLowerCase(java.util.Locale.ROOT);
        long unit = v.endsWith("k") ? 1024 : v.endsWith("m") ? 1024 * 1024 : 1;
        return Long.parseLong(unit == 1 ? v : v.substring(0, v.length() - 1)) * unit;
    }
}
