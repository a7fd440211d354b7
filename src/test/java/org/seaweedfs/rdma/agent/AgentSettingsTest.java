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
import org.seaweedfs.rdma.protocol.ControlCodec;
import org.seaweedfs.rdma.testing.AgentSetup;
import org.seaweedfs.rdma.ucx.UcxSettings;

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
    void theFixedSizesAndTimes() {
        assertEquals(Duration.ofMillis(250), AgentVerticle.POLL_INTERVAL);
        assertEquals(Duration.ofSeconds(10), AgentVerticle.RETIRE_GRACE);
        assertEquals(1L << 30, DatSegments.SEGMENT_BYTES);
        assertEquals(0, DatSegments.SEGMENT_BYTES % 4096, "segments start on page boundaries");
        assertTrue(DatSegments.SEGMENT_BYTES <= Integer.MAX_VALUE, "one Java 17 mapping holds a segment");
        assertEquals(4 << 20, ControlCodec.DEFAULT_MAX_FRAME_BYTES);
        assertTrue(ControlCodec.DEFAULT_MAX_FRAME_BYTES <= UcxSettings.MAX_FRAME_BYTES, "UCX channels carry a frame");
        assertEquals(32, ControlServer.MAX_REPLIES_IN_FLIGHT);
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
    void toStringHidesTheToken() {
        assertFalse(AgentSetup.config("authToken: s3cret").settings(DATA).toString().contains("s3cret"));
    }

    private static void assertRejected(String start, Supplier<?> make) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, make::get);
        assertTrue(e.getMessage().startsWith(start), e.getMessage());
    }
}
