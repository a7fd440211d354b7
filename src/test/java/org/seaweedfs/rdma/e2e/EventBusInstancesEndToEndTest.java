package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.seaweedfs.rdma.testing.Await.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.volume.Fixtures;

/**
 * {@code sidecar.eventBusInstances: 2}, deployed as {@code serve} deploys it: two consumers of the read address, each
 * reading on its own event loop's UCX lane, and every reply the needle's bytes.
 */
class EventBusInstancesEndToEndTest {

    @TempDir
    Path dir;

    @Test
    void twoConsumerInstancesShareTheReadsAndEachReadsOnItsOwnEventLoop() {
        Fixtures.copyDir("volumes", dir);
        List<FixtureNeedles.Expected> needles = FixtureNeedles.live(dir, 1);
        try (Stack agent = Stack.agent(dir, 0);
             Stack sidecar = Stack.sidecar(agent.agentPort(), "  eventBusInstances: 2\n")) {
            MeterRegistry registry = sidecar.metrics.registry();
            double lanesBefore = lanes(registry);

            // Vert.x deals requests to the consumers in turn, so reads one after another alternate between them
            // (one at a time, so the small test pool never runs out and sends a read to a fallback).
            for (int round = 0; round < 2; round++) {
                for (FixtureNeedles.Expected e : needles) {
                    Message<Buffer> reply = await(sidecar.vertx.eventBus().request("seaweedfs.needle.read",
                            new JsonObject().put("fid", e.fid().toString())));
                    assertArrayEquals(e.plain(), reply.body().getBytes(), e.fid().toString());
                    assertEquals("rdma", reply.headers().get("source"), e.fid().toString());
                }
            }
            // Each instance has an event loop of its own (Vert.x deals new contexts round-robin over its loops): two
            // consumers that both read open two lanes; one consumer, or both on one loop, would open one.
            assertEquals(lanesBefore + 2, lanes(registry), "a lane opened on each consumer's event loop");
        }
    }

    private static double lanes(MeterRegistry registry) {
        return registry.get("seaweedfs.rdma.ucx.lanes").tag("worker", "sidecar").gauge().value();
    }
}
