package org.seaweedfs.rdma.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.testing.AgentSetup;

class AgentSettingsTest {

    private static final Path DATA = Path.of("/data");

    private static AgentSettings settings(String host, int port, List<Path> dirs, String token, long memoryLimit) {
        return new AgentSettings(host, port, dirs, false, token, VolumeMemory.MAPPED, memoryLimit, null, null);
    }

    @Test
    void theConfigurationsDefaults() {
        AgentSettings s = AgentSetup.DEFAULTS.settings(DATA);
        assertNull(s.authToken());
        assertFalse(s.offset5());
        assertEquals(VolumeMemory.MAPPED, s.volumeMemory());
        assertEquals(4L << 30, s.volumeMemoryLimit());
        assertEquals("agent-127.0.0.1-0", s.agentId());
        assertTrue(AgentSetup.config("offset5: true").settings(DATA).offset5());
    }

    @Test
    void theFixedLimits() {
        assertEquals(Duration.ofMillis(250), AgentLimits.FIXED.pollInterval());
        assertEquals(1L << 30, AgentLimits.FIXED.segmentBytes());
        assertEquals(Duration.ofSeconds(10), AgentLimits.FIXED.retireGrace());
        assertEquals(4 << 20, AgentLimits.FIXED.maxFrameBytes());
        assertEquals(32, AgentLimits.FIXED.maxRepliesInFlight());
    }

    @Test
    void everyRejectionNamesItsKey() {
        assertRejected("agent.listen", () -> settings(" ", 1, List.of(DATA), null, 0));
        assertRejected("agent.listen", () -> settings("h", 70000, List.of(DATA), null, 0));
        assertRejected("agent.volumeDirs", () -> settings("h", 1, List.of(), null, 0));
        assertRejected("agent.volumeDirs", () -> settings("h", 1, List.of(DATA, DATA), null, 0));
        assertRejected("agent.authToken", () -> settings("h", 1, List.of(DATA), "", 0));
        assertRejected("agent.authToken", () -> settings("h", 1, List.of(DATA), "x".repeat(1025), 0));
        assertRejected("agent.volumeMemoryLimit", () -> settings("h", 1, List.of(DATA), null, -1));
        assertThrows(NullPointerException.class,
                () -> new AgentSettings("h", 1, List.of(DATA), false, null, null, 0, null, null), "agent.volumeMemory");
    }

    @Test
    void limitsAreChecked() {
        assertRejected("the poll interval", () -> limits(Duration.ZERO, 4096, Duration.ZERO, 1 << 20));
        assertRejected("the poll interval", () -> limits(Duration.ofMinutes(2), 4096, Duration.ZERO, 1 << 20));
        assertRejected("a segment", () -> limits(Duration.ofSeconds(1), 1000, Duration.ZERO, 1 << 20));
        assertRejected("a segment", () -> limits(Duration.ofSeconds(1), 64 * 1024 + 8, Duration.ZERO, 1 << 20));
        assertRejected("a segment", () -> limits(Duration.ofSeconds(1), 2L << 30, Duration.ZERO, 1 << 20));
        assertRejected("the retire grace", () -> limits(Duration.ofSeconds(1), 4096, Duration.ofSeconds(-1), 1 << 20));
        assertRejected("the largest control frame", () -> limits(Duration.ofSeconds(1), 4096, Duration.ZERO, 100));
    }

    @Test
    void segmentsUpToJustBelowTwoGibAndDownToOnePage() {
        assertEquals(4096, AgentSetup.segments(4096).segmentBytes());
        assertEquals(AgentLimits.MAX_SEGMENT_BYTES, AgentSetup.segments(AgentLimits.MAX_SEGMENT_BYTES).segmentBytes());
        assertTrue(AgentLimits.MAX_SEGMENT_BYTES < (2L << 30));
    }

    @Test
    void toStringHidesTheToken() {
        assertFalse(AgentSetup.config("authToken: s3cret").settings(DATA).toString().contains("s3cret"));
    }

    private static AgentLimits limits(Duration poll, long segment, Duration grace, int frame) {
        return new AgentLimits(poll, segment, grace, frame, 32, AgentLimits.FIXED.ecLargeBlock(),
                AgentLimits.FIXED.ecSmallBlock());
    }

    private static void assertRejected(String start, Supplier<?> make) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, make::get);
        assertTrue(e.getMessage().startsWith(start), e.getMessage());
    }
}
