package org.seaweedfs.rdma.cli;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.seaweedfs.rdma.config.RdmaConfig;
import org.seaweedfs.rdma.config.Role;

/**
 * The heap option {@code serve} relaunches a sidecar-only JVM with ({@code sidecar.maxHeap}): without one the JVM
 * may grow its heap to a quarter of the host's RAM under load, so a sidecar beside an application would hold
 * hundreds of MiB it does not need. An agent keeps the JVM's default (its needle maps grow with its volumes), and
 * an operator's own heap option always wins.
 */
final class HeapBound {

    /** JVM options that already bound (or size) the heap: any of them means the operator chose. */
    private static final List<String> HEAP_OPTIONS = List.of("-Xmx", "-XX:MaxHeapSize", "-XX:MaxRAM",
            "-XX:MaxRAMPercentage", "-XX:MaxRAMFraction");

    private HeapBound() {
    }

    /** {@code -Xmx<bytes>} when this process should get one, else empty. */
    static Optional<String> option(RdmaConfig config, List<String> jvmArguments, Map<String, String> env) {
        long bytes = config.sidecar().maxHeapBytes();
        if (bytes == 0 || !config.roles().equals(Set.of(Role.SIDECAR)) || chosen(jvmArguments)
                || chosen(List.of(env.getOrDefault("JAVA_TOOL_OPTIONS", "").split("\\s+")))
                || chosen(List.of(env.getOrDefault("JDK_JAVA_OPTIONS", "").split("\\s+")))) {
            return Optional.empty();
        }
        return Optional.of("-Xmx" + bytes);
    }

    private static boolean chosen(List<String> arguments) {
        return arguments.stream().anyMatch(a -> HEAP_OPTIONS.stream().anyMatch(a::startsWith));
    }
}
