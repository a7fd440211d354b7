package org.seaweedfs.rdma.testing;

import static java.util.stream.Collectors.joining;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.config.Fallback;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.config.SidecarConfig;

/**
 * A test sidecar's configuration: the lines of its {@code sidecar:} section, as an operator writes them, built by the
 * configuration loader as {@code serve} does. Keys not given keep the product's defaults.
 */
public final class SidecarSetup {

    /** 16 buffers of 1 MiB: enough for the tests' reads, little registered memory. */
    public static final String SMALL_POOL = "bufferPool: {bufferSize: 1048576, totalBytes: 16777216}";

    private SidecarSetup() {
    }

    /** The {@code sidecar:} section of these lines (blank ones skipped). */
    public static SidecarConfig config(String... lines) {
        String section = Arrays.stream(lines).filter(l -> !l.isBlank()).map(l -> "  " + l + "\n").collect(joining());
        return ConfigLoader.parse("roles: [sidecar]\nsidecar:\n" + section, "test sidecar", Map.of()).sidecar();
    }

    /** {@code agents: [...]}. */
    public static String agents(List<HostPort> agents) {
        return "agents: [" + agents.stream().map(a -> "'" + a + "'").collect(joining(", ")) + "]";
    }

    /** {@code fallback: [...]}. */
    public static String fallback(List<Fallback> fallback) {
        return "fallback: [" + fallback.stream().map(f -> f.configName).collect(joining(", ")) + "]";
    }

    /** {@code key: <millis>ms}. */
    public static String duration(String key, Duration value) {
        return key + ": " + value.toMillis() + "ms";
    }
}
