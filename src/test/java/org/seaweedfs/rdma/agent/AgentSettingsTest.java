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
    void theFixedLayoutAndTimes() {
        assertEquals(Duration.ofMillis(250), AgentVerticle.POLL_INTERVAL);
        assertEquals(Duration.ofSeconds(10), AgentVerticle.RETIRE_GRACE);
        assertEquals(1L << 30, AgentLayout.FIXED.segmentBytes());
        assertEquals(4 << 20, AgentLayout.FIXED.maxFrameBytes());
        assertEquals(32, AgentLayout.FIXED.maxRepliesInFlight());
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
    void aLayoutIsChecked() {
        assertRejected("a segment", () -> layout(1000, 1 << 20, 32));
        assertRejected("a segment", () -> layout(64 * 1024 + 8, 1 << 20, 32));
        assertRejected("a segment", () -> layout(2L << 30, 1 << 20, 32));
        assertRejected("the largest control frame", () -> layout(4096, 100, 32));
        assertRejected("the large replies in flight", () -> layout(4096, 1 << 20, 0));
        assertRejected("EC block sizes", () -> new AgentLayout(4096, 10, 20, 1 << 20, 32));
    }

    @Test
    void segmentsUpToJustBelowTwoGibAndDownToOnePage() {
        assertEquals(4096, AgentSetup.segments(4096).segmentBytes());
        assertEquals(AgentLayout.MAX_SEGMENT_BYTES, AgentSetup.segments(AgentLayout.MAX_SEGMENT_BYTES).segmentBytes());
        assertTrue(AgentLayout.MAX_SEGMENT_BYTES < (2L << 30));
    }

    @Test
    void toStringHidesTheToken() {
        assertFalse(AgentSetup.config("authToken: s3cret").settings(DATA).toString().contains("s3cret"));
    }

    private static AgentLayout layout(long segment, int frame, int repliesInFlight) {
        return new AgentLayout(segment, AgentLayout.FIXED.ecLargeBlock(), AgentLayout.FIXED.ecSmallBlock(), frame,
                repliesInFlight);
    }

    private static void assertRejected(String start, Supplier<?> make) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, make::get);
        assertTrue(e.getMessage().startsWith(start), e.getMessage());
    }
}
