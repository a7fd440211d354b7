package org.seaweedfs.rdma.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;
import org.seaweedfs.rdma.testing.UcxSetup;

/** The UCX settings every context of the library sets, and those peers must share. */
class UcxSettingsTest {

    /** UCX 1.13's shared-memory FIFO element keeps a fragment's length in 16 bits (uct_mm_fifo_element.length). */
    private static final long MM_FRAGMENT_LENGTH_LIMIT = 0xFFFF;

    @Test
    void transportSettingsAreOnTheContextForTheTransportsTheListLeavesIn() {
        Map<String, String> all = UcxSettings.defaults().contextConfig();
        assertEquals("262144", all.get("RX_SEG_SIZE"));
        assertEquals("262144", all.get("TX_SEG_SIZE"));
        assertEquals("32768", all.get("MM_SEG_SIZE"));
        assertEquals("64", all.get("MM_FIFO_SIZE"));
        assertEquals("128", all.get("MM_FIFO_ELEM_SIZE"));
        assertEquals("y", all.get("MM_ERROR_HANDLING"));
        // UCX warns about a key no interface used: none for transports the list leaves out
        Map<String, String> tcp = UcxSetup.tls("tcp").settings().contextConfig();
        assertEquals("262144", tcp.get("RX_SEG_SIZE"));
        assertFalse(tcp.keySet().stream().anyMatch(k -> k.startsWith("MM_")), tcp.toString());
        Map<String, String> sm = UcxSetup.tls("sm,self").settings().contextConfig();
        assertFalse(sm.containsKey("RX_SEG_SIZE"), sm.toString());
        assertEquals("32768", sm.get("MM_SEG_SIZE"));
        assertFalse(UcxSetup.tls("^tcp").settings().contextConfig().containsKey("RX_SEG_SIZE"));
        assertTrue(UcxSetup.tls("^ib").settings().contextConfig().containsKey("MM_SEG_SIZE"));
        assertFalse(UcxSetup.ucx("errorHandling: none").settings().contextConfig()
                .containsKey("MM_ERROR_HANDLING"));
    }

    @Test
    void sharedMemoryFragmentsAreLargerThanUcxsDefaultYetFitItsSixteenBitLength() {
        long bytes = UcxSettings.SHARED_MEMORY_SEG_SIZE;
        assertTrue(bytes > 8256, "UCX's default or less: " + bytes);
        // a fragment is the segment's payload plus UCX's headers: 64 KiB arrives as length 0 and UCX aborts
        assertTrue(bytes + 1024 < MM_FRAGMENT_LENGTH_LIMIT, "does not fit 16 bits: " + bytes);
    }

    @Test
    void peerSettingsAreTheValuesInEffectAndDifferencesNameBothSides() {
        UcxSettings defaults = UcxSettings.defaults();
        Map<String, Long> ours = defaults.peerSettings();
        assertEquals(Map.of("TCP_RX_SEG_SIZE", 262144L, "MM_SEG_SIZE", 32768L, "MM_FIFO_SIZE", 64L,
                "MM_FIFO_ELEM_SIZE", 128L), ours);
        // listed whatever the transports, so a TCP-only peer and a shared-memory one agree
        assertEquals(ours, UcxSetup.tls("tcp").settings().peerSettings());
        assertEquals(List.of(), defaults.peerSettingDifferences(ours));

        Map<String, Long> other = new java.util.LinkedHashMap<>(ours);
        other.put("TCP_RX_SEG_SIZE", 65536L);
        assertEquals(List.of("TCP_RX_SEG_SIZE 65536 there, 262144 here"), defaults.peerSettingDifferences(other));
        Map<String, Long> fewer = new java.util.LinkedHashMap<>(ours);
        fewer.remove("MM_FIFO_SIZE");
        fewer.put("FUTURE_SETTING", 1L);
        assertEquals(List.of("FUTURE_SETTING 1 there, not set here", "MM_FIFO_SIZE not set there, 64 here"),
                defaults.peerSettingDifferences(fewer));
    }

    @Test
    void environmentTheContextOverridesIsNamedOnlyWhenItDiffers() {
        UcxSettings defaults = UcxSettings.defaults();
        assertEquals(List.of(), defaults.overriddenEnvironment(Map.of("UCX_TCP_RX_SEG_SIZE", "256k",
                "UCX_POSIX_SEG_SIZE", "32K", "UCX_SYSV_ERROR_HANDLING", "y", "UCX_TLS", "tcp")));
        List<String> lines = defaults.overriddenEnvironment(Map.of("UCX_TCP_RX_SEG_SIZE", "64k"));
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0)
                .startsWith("UCX_TCP_RX_SEG_SIZE=64k in the environment has no effect: this library sets "
                + "RX_SEG_SIZE=262144"), lines.get(0));
        assertTrue(lines.get(0).endsWith("because peers must agree on it"), lines.get(0));
        assertEquals(1, defaults.overriddenEnvironment(Map.of("UCX_SYSV_FIFO_SIZE", "256")).size());
        assertEquals(List.of(), UcxSetup.tls("tcp").settings()
                .overriddenEnvironment(Map.of("UCX_SYSV_FIFO_SIZE", "256")));
    }

    @Test
    void memoryUnitsParse() {
        assertEquals(65536, UcxSettings.memoryUnits("64k"));
        assertEquals(65536, UcxSettings.memoryUnits("64KB"));
        assertEquals(1 << 20, UcxSettings.memoryUnits("1m"));
        assertEquals(8256, UcxSettings.memoryUnits("8256"));
        assertEquals(-1, UcxSettings.memoryUnits("auto"));
        assertEquals(-1, UcxSettings.memoryUnits("99999999999999999999"));
        assertEquals("UCX_TCP_RX_SEG_SIZE", UcxConfigReport.environmentName("RX_SEG_SIZE"));
        assertEquals("UCX_MM_SEG_SIZE", UcxConfigReport.environmentName("MM_SEG_SIZE"));
    }

    /**
     * UCX takes the shared-memory keys from the context, not only from the environment (this test's JVM has no
     * UCX_POSIX/SYSV_ERROR_HANDLING): two workers that may use shared memory only connect by worker address with peer
     * error handling when the context set MM_ERROR_HANDLING; without it UCX finds no transport to connect them.
     */
    @Test
    void sharedMemoryWithPeerErrorHandlingNeedsNoEnvironment() {
        Map<String, String> sharedMemoryOnly = UcxSetup.tls("sm,self").settings().contextConfig();
        assertTrue(connectsByAddress(sharedMemoryOnly));
        Map<String, String> withoutErrorHandling = new java.util.LinkedHashMap<>(sharedMemoryOnly);
        withoutErrorHandling.put("MM_ERROR_HANDLING", "n");
        assertFalse(connectsByAddress(withoutErrorHandling));
    }

    private static boolean connectsByAddress(Map<String, String> contextConfig) {
        assertFalse(System.getenv().containsKey("UCX_POSIX_ERROR_HANDLING"),
                "the test needs an environment without it");
        UcxLogFilter.install();
        UcpParams params = new UcpParams().requestRmaFeature().requestAmFeature();
        contextConfig.forEach(params::setConfig);
        try (UcpContext context = new UcpContext(params);
             UcpWorker a = context.newWorker(new UcpWorkerParams());
             UcpWorker b = context.newWorker(new UcpWorkerParams())) {
            ByteBuffer address = b.getAddress();
            UcpEndpoint endpoint;
            try {
                endpoint = a.newEndpoint(new UcpEndpointParams().setUcpAddress(address).setPeerErrorHandlingMode()
                        .setErrorHandler((ep, status, message) -> { }));
            } catch (UcxException e) {
                return false;
            }
            endpoint.close();
            return true;
        }
    }
}
