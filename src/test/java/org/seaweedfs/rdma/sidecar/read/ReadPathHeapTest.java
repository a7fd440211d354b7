package org.seaweedfs.rdma.sidecar.read;

import org.seaweedfs.rdma.testing.AgentSetup;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.StaticAgentRouter;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.VolumeWriter;
import org.seaweedfs.rdma.testing.AgentHarness;

/** A million RDMA reads leave the heap where it was (no per-read leak in the read path or the transport). */
@Tag("slow") // a million reads, and GC-sensitive: the slow-tests execution runs it
class ReadPathHeapTest {

    private static final long READS = 1_000_000;

    @TempDir
    Path dir;

    /** Collects until a collection frees nothing more (a full collection on request returns when it is done). */
    private static long usedHeapAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            memory.gc();
            long now = memory.getHeapMemoryUsage().getUsed();
            if (now >= used) {
                break;
            }
            used = now;
        }
        return used;
    }

    @Test
    void heapStaysFlatOverAMillionReads() throws Exception {
        List<FileId> fids = new ArrayList<>();
        Random random = new Random(1);
        try (VolumeWriter writer = VolumeWriter.create(dir, "", 1, 3, IndexFormat.of(false))) {
            for (int key = 1; key <= 64; key++) {
                byte[] data = new byte[1024 + random.nextInt(3 * 1024)];
                random.nextBytes(data);
                writer.append(NewNeedle.builder(key, key * 7, data).build());
                fids.add(new FileId(1, key, key * 7));
            }
        }
        try (AgentHarness agent = new AgentHarness(dir, "sm,tcp,self", AgentSetup.DEFAULTS);
             ReadPathHarness.SidecarSide sidecar = new ReadPathHarness.SidecarSide("sm,tcp,self",
                     new RegisteredBufferPool.Settings(64 << 10, 64, 1 << 20, 2))) {
            NeedleReader reader = sidecar.reader(new StaticAgentRouter(sidecar.connect(agent.port(), null)),
                    ReadPathOptions.defaults());
            await(ReadLoop.run(sidecar.vertx, reader, fids, 20_000, 16, null), Duration.ofMinutes(10));
            long before = usedHeapAfterGc();
            await(ReadLoop.run(sidecar.vertx, reader, fids, READS, 16, null), Duration.ofMinutes(20));
            long after = usedHeapAfterGc();
            assertEquals(20_000 + READS, reader.counters().served());
            assertEquals(0, sidecar.pool.inUse());
            long growth = after - before;
            System.out.printf("heap used after gc: before %d KiB, after %d KiB over %d reads%n", before >> 10,
                    after >> 10, READS);
            assertTrue(growth < 32L << 20, "heap grew by " + (growth >> 10) + " KiB over " + READS + " reads");
        }
    }
}
