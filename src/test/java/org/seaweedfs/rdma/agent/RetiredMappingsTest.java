package org.seaweedfs.rdma.agent;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.ucx.UcxMemoryRegion;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;

import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;
import static org.seaweedfs.rdma.testing.Await.until;

/** Retired mappings stay registered for the grace, are deregistered after it, and all go at once on stop. */
class RetiredMappingsTest {

    @TempDir
    Path tmp;
    private final Vertx vertx = Vertx.vertx();
    private final UcxWorkerVerticle ucx = new UcxWorkerVerticle(AgentTestClient.ucxSettings());
    private final AgentMetrics metrics = new AgentMetrics();
    private final SegmentMemory memory = new SegmentMemory(ucx, VolumeMemory.UCX, 1 << 20,
            DatSegments.SEGMENT_BYTES, metrics);

    @AfterEach
    void close() throws Exception {
        await(vertx.close());
    }

    @Test
    void deregisteredOnlyAfterTheGraceAndAllAtOnceOnRelease() throws Exception {
        await(vertx.deployVerticle(ucx));
        Context context = vertx.getOrCreateContext();
        RetiredMappings retired = new RetiredMappings(vertx, memory, 200);
        ServedSegment first = segment("a", context);
        ServedSegment second = segment("b", context);
        onContext(context, () -> {
            retired.retire(List.of(first));
            return null;
        });
        assertTrue(first.region().isRegistered(), "still registered right after retiring");
        until("deregistered after the grace", () -> !first.region().isRegistered());

        onContext(context, () -> {
            retired.retire(List.of(second));
            return null;
        });
        assertEquals(1, (int) onContext(context, retired::pending));
        await(onContext(context, retired::releaseAll));
        assertFalse(second.region().isRegistered(), "released at once on stop");
        assertEquals(0, (int) onContext(context, retired::pending));
    }

    @Test
    void aCopyStaysRegisteredForBothGracesThenIsFreedAndLeavesTheBudget() throws Exception {
        await(vertx.deployVerticle(ucx));
        Context context = ((VertxInternal) vertx).createWorkerContext(); // like the agent's: copying blocks
        RetiredMappings retired = new RetiredMappings(vertx, memory, 300);
        Path file = Files.write(tmp.resolve("c"), new byte[10_000]);
        ServedSegment copy;
        try (FileChannel dat = FileChannel.open(file, StandardOpenOption.READ)) {
            copy = await(onContext(context, () -> {
                assertTrue(memory.reserve(1, "c", 16384));
                return memory.copy(dat, "c", 0, 10_000, 16384);
            }));
        }
        assertTrue(copy.isCopy());
        assertEquals(16384, metrics.volumeCopyBytes());
        long retiredAt = System.nanoTime();
        onContext(context, () -> {
            retired.retire(List.of(copy));
            return null;
        });
        until("freed after the graces", () -> !copy.region().isRegistered());
        assertTrue(System.nanoTime() - retiredAt >= TimeUnit.MILLISECONDS.toNanos(600),
                "a copy cannot be deregistered without being freed, so it waits for both graces");
        assertEquals(0, metrics.volumeCopyBytes());
    }

    private ServedSegment segment(String name, Context context) throws Exception {
        Path file = Files.write(tmp.resolve(name), new byte[8192]);
        MappedByteBuffer mapping;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            mapping = ch.map(FileChannel.MapMode.READ_ONLY, 0, 8192);
        }
        UcxMemoryRegion region = await(onContext(context, () -> ucx.register(mapping)));
        return ServedSegment.mapped(0, mapping, region);
    }

    private static <T> T onContext(Context context, Callable<T> call) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        context.runOnContext(v -> {
            try {
                result.complete(call.call());
            } catch (Exception e) {
                result.completeExceptionally(e);
            }
        });
        return result.get(AgentTestClient.TIMEOUT_S, TimeUnit.SECONDS);
    }
}
