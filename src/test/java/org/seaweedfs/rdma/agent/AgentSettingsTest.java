package org.seaweedfs.rdma.agent;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AgentSettingsTest {

    private final AgentSettings base = AgentSettings.of("127.0.0.1", 18515, List.of(Path.of("/data")));

    @Test
    void defaults() {
        assertEquals(Duration.ofMillis(250), base.pollInterval());
        assertEquals(1L << 30, base.segmentBytes());
        assertEquals(Duration.ofSeconds(10), base.retireGrace());
        assertEquals(4 << 20, base.maxFrameBytes());
        assertNull(base.authToken());
        assertFalse(base.offset5());
        assertTrue(base.withOffset5(true).offset5());
        assertEquals(VolumeMemory.MAPPED, base.volumeMemory());
        assertEquals(4L << 30, base.volumeMemoryLimit());
    }

    @Test
    void everyRejectionNamesItsField() {
        assertRejected("agent.host", () -> AgentSettings.of(" ", 1, List.of(Path.of("/d"))));
        assertRejected("agent.port", () -> AgentSettings.of("h", 70000, List.of(Path.of("/d"))));
        assertRejected("agent.volumeDirs", () -> AgentSettings.of("h", 1, List.of()));
        assertRejected("agent.volumeDirs", () -> AgentSettings.of("h", 1, List.of(Path.of("/d"), Path.of("/d"))));
        assertRejected("agent.authToken", () -> base.withAuthToken(""));
        assertRejected("agent.authToken", () -> base.withAuthToken("x".repeat(1025)));
        assertRejected("agent.agentId", () -> base.withAgentId(" "));
        assertRejected("agent.pollInterval", () -> base.withPollInterval(Duration.ZERO));
        assertRejected("agent.pollInterval", () -> base.withPollInterval(Duration.ofMinutes(2)));
        assertRejected("agent.segmentBytes", () -> base.withSegmentBytes(1000));
        assertRejected("agent.segmentBytes", () -> base.withSegmentBytes(64 * 1024 + 8));
        assertRejected("agent.segmentBytes", () -> base.withSegmentBytes(2L << 30));
        assertRejected("agent.retireGrace", () -> base.withRetireGrace(Duration.ofSeconds(-1)));
        assertRejected("agent.maxFrameBytes", () -> base.withMaxFrameBytes(100));
        assertRejected("agent.volumeMemoryLimit", () -> base.withVolumeMemory(VolumeMemory.UCX, -1));
        assertThrows(NullPointerException.class, () -> base.withVolumeMemory(null, 0), "agent.volumeMemory");
    }

    @Test
    void segmentsUpToJustBelowTwoGibAndDownToOnePage() {
        assertEquals(4096, base.withSegmentBytes(4096).segmentBytes());
        assertEquals(AgentSettings.MAX_SEGMENT_BYTES,
                base.withSegmentBytes(AgentSettings.MAX_SEGMENT_BYTES).segmentBytes());
        assertTrue(AgentSettings.MAX_SEGMENT_BYTES < (2L << 30));
    }

    @Test
    void toStringHidesTheToken() {
        assertFalse(base.withAuthToken("s3cret").toString().contains("s3cret"));
    }

    private static void assertRejected(String field, Supplier<AgentSettings> make) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, make::get);
        assertTrue(e.getMessage().startsWith(field), e.getMessage());
    }
}
