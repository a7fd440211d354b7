package org.seaweedfs.rdma.cli;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.seaweedfs.rdma.config.RdmaConfig;
import org.seaweedfs.rdma.config.Role;

/**
 * The heap option {@code serve} relaunches a JVM with ({@code sidecar.maxHeap} for a sidecar-only process,
 * {@code agent.maxHeap} for an agent-only one, their sum for both roles): without one the JVM may grow its heap to
 * a quarter of the host's RAM under load, so a process beside an application or a volume server would hold hundreds
 * of MiB it does not need. The agent's needle index lives off the heap, so its bound does not depend on the needles
 * it serves. A bound of 0 leaves the JVM's default, and an operator's own heap option always wins.
 */
final class HeapBound {

    /** JVM options that already bound (or size) the heap: any of them means the operator chose. */
    private static final List<String> HEAP_OPTIONS = List.of("-Xmx", "-XX:MaxHeapSize", "-XX:MaxRAM",
            "-XX:MaxRAMPercentage", "-XX:MaxRAMFraction");

    private HeapBound() {
    }

    /** {@code -Xmx<bytes>} when this process should get one, else empty. */
    static Optional<String> option(RdmaConfig config, List<String> jvmArguments, Map<String, String> env) {
        long bytes = bound(config);
        if (bytes == 0 || chosen(jvmArguments)
                || chosen(List.of(env.getOrDefault("JAVA_TOOL_OPTIONS", "").split("\\s+")))
                || chosen(List.of(env.getOrDefault("JDK_JAVA_OPTIONS", "").split("\\s+")))) {
            return Optional.empty();
        }
        return Optional.of("-Xmx" + bytes);
    }

    /** The configured bound of the roles this process runs; 0 when any of them leaves it to the JVM. */
    static long bound(RdmaConfig config) {
        long sidecar = config.sidecar().maxHeapBytes();
        long agent = config.agent().maxHeapBytes();
        if (config.roles().equals(Set.of(Role.SIDECAR))) {
            return sidecar;
        }
        if (config.roles().equals(Set.of(Role.AGENT))) {
            return agent;
        }
        return config.roles().equals(Set.of(Role.AGENT, Role.SIDECAR)) && sidecar != 0 && agent != 0 ? sidecar + agent
                : 0;
    }

    private static boolean chosen(List<String> arguments) {
        return arguments.stream().anyMatch(a -> HEAP_OPTIONS.stream().anyMatch(a::startsWith));
    }
}
