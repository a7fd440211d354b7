package org.seaweedfs.rdma.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.config.RdmaConfig;

class HeapBoundTest {

    private static RdmaConfig config(String yaml) {
        return ConfigLoader.parse(yaml, "test.yaml", Map.of());
    }

    private static final RdmaConfig SIDECAR = config("roles: [sidecar]\nsidecar: {agents: ['127.0.0.1:18515']}");

    @Test
    void aSidecarOnlyJvmWithoutAHeapOptionGetsTheConfiguredBound() {
        assertEquals(Optional.of("-Xmx" + (192L << 20)), HeapBound.option(SIDECAR, List.of("-Dfoo=1"), Map.of()));
        assertEquals(Optional.of("-Xmx" + (256L << 20)), HeapBound.option(
                config("roles: [sidecar]\nsidecar: {agents: ['127.0.0.1:18515'], maxHeap: 256MiB}"), List.of(),
                        Map.of()));
    }

    @Test
    void theOperatorsOwnHeapOptionWinsWhereverItIsGiven() {
        assertEquals(Optional.empty(), HeapBound.option(SIDECAR, List.of("-Xmx1g"), Map.of()));
        assertEquals(Optional.empty(), HeapBound.option(SIDECAR, List.of("-XX:MaxRAMPercentage=10"), Map.of()));
        assertEquals(Optional.empty(),
                HeapBound.option(SIDECAR, List.of(), Map.of("JAVA_TOOL_OPTIONS", "-Dx=1 -Xmx512m")));
        assertEquals(Optional.empty(),
                HeapBound.option(SIDECAR, List.of(), Map.of("JDK_JAVA_OPTIONS", "-XX:MaxHeapSize=1g")));
    }

    @Test
    void agentsGetTheirBoundAndZeroKeepsTheJvmDefault() {
        assertEquals(Optional.of("-Xmx" + (256L << 20)),
                HeapBound.option(config("roles: [agent]\nagent: {volumeDirs: [/tmp]}"), List.of(), Map.of()));
        assertEquals(Optional.of("-Xmx" + (448L << 20)), HeapBound.option(
                config("roles: [agent, sidecar]\nagent: {volumeDirs: [/tmp]}\nsidecar: {agents: ['127.0.0.1:18515']}"),
                List.of(), Map.of()));
        assertEquals(Optional.empty(), HeapBound.option(
                config("roles: [agent]\nagent: {volumeDirs: [/tmp], maxHeap: 0}"), List.of(), Map.of()));
        assertEquals(Optional.empty(), HeapBound.option(
                config("roles: [sidecar]\nsidecar: {agents: ['127.0.0.1:18515'], maxHeap: 0}"), List.of(), Map.of()));
    }
}
