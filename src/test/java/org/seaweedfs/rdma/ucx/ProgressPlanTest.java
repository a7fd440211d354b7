package org.seaweedfs.rdma.ucx;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProgressPlanTest {

    @Test
    void anAgentWithoutRdmaSpinsAfterEachEvent() {
        ProgressPlan plan = ProgressPlan.choose("auto", ProgressPlan.Served.FILE_MAPPINGS, "all", List.of());
        assertEquals(ProgressPlan.SERVING_SPIN_MICROS, plan.idleSpinMicros());
        assertTrue(plan.reason().contains("no RDMA device"), plan.reason());
    }

    @Test
    void anAgentWithRdmaDevicesItMayUseWaitsAtOnce() {
        ProgressPlan plan = ProgressPlan.choose("auto", ProgressPlan.Served.FILE_MAPPINGS, "all", List.of("mlx5_0"));
        assertEquals(0, plan.idleSpinMicros());
        assertTrue(plan.reason().contains("mlx5_0"), plan.reason());
    }

    @Test
    void rdmaDevicesExcludedByTheTransportListStillMeanEmulatedGets() {
        ProgressPlan plan = ProgressPlan.choose("auto", ProgressPlan.Served.FILE_MAPPINGS, "tcp,sm", List.of("mlx5_0"));
        assertEquals(ProgressPlan.SERVING_SPIN_MICROS, plan.idleSpinMicros());
        assertTrue(plan.reason().contains("excludes RDMA"), plan.reason());
    }

    @Test
    void anAgentServingUcxCopiesWaitsWhenSharedMemoryCarriesThemAndSpinsWhenOnlyTcpDoes() {
        ProgressPlan shm = ProgressPlan.choose("auto", ProgressPlan.Served.UCX_COPIES, "shm,tcp", List.of());
        assertEquals(0, shm.idleSpinMicros());
        assertTrue(shm.reason().contains("shared memory"), shm.reason());
        assertEquals(0, ProgressPlan.choose("auto", ProgressPlan.Served.UCX_COPIES, "all", List.of()).idleSpinMicros());
        assertEquals(ProgressPlan.SERVING_SPIN_MICROS,
                ProgressPlan.choose("auto", ProgressPlan.Served.UCX_COPIES, "tcp", List.of()).idleSpinMicros());
        assertEquals(ProgressPlan.SPIN_MICROS,
                ProgressPlan.choose("spin", ProgressPlan.Served.UCX_COPIES, "shm,tcp", List.of()).idleSpinMicros());
    }

    @Test
    void aWorkerWhoseMemoryNobodyReadsWaitsAtOnce() {
        assertEquals(0, ProgressPlan.choose("auto", ProgressPlan.Served.NOTHING, "all", List.of()).idleSpinMicros());
    }

    @Test
    void explicitModesWinAndUnknownOnesAreRefused() {
        assertEquals(0, ProgressPlan.choose("wait", ProgressPlan.Served.FILE_MAPPINGS, "all", List.of()).idleSpinMicros());
        assertEquals(ProgressPlan.SPIN_MICROS, ProgressPlan.choose("SPIN", ProgressPlan.Served.NOTHING, "all", List.of("mlx5_0")).idleSpinMicros());
        assertThrows(IllegalArgumentException.class, () -> ProgressPlan.choose("busy", ProgressPlan.Served.FILE_MAPPINGS, "all", List.of()));
    }

    @Test
    void rdmaDevicesAreTheDirectoryEntriesSorted(@TempDir Path dir) throws Exception {
        assertEquals(List.of(), ProgressPlan.rdmaDevices(dir.resolve("missing")));
        assertEquals(List.of(), ProgressPlan.rdmaDevices(dir));
        Files.createDirectory(dir.resolve("mlx5_1"));
        Files.createDirectory(dir.resolve("mlx5_0"));
        assertEquals(List.of("mlx5_0", "mlx5_1"), ProgressPlan.rdmaDevices(dir));
    }

    @Test
    void theIdleSpinIsBounded() {
        UcxSettings defaults = UcxSettings.defaults();
        assertEquals(0, defaults.idleSpinMicros());
        assertEquals(100, defaults.withIdleSpinMicros(100).idleSpinMicros());
        assertThrows(IllegalArgumentException.class, () -> defaults.withIdleSpinMicros(-1));
        assertThrows(IllegalArgumentException.class, () -> defaults.withIdleSpinMicros(UcxSettings.MAX_IDLE_SPIN_MICROS + 1));
    }
}
