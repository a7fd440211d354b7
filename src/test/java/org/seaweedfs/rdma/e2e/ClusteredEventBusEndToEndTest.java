package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.e2e.Stack.await;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.SeaweedRdma;
import org.seaweedfs.rdma.client.Needle;
import org.seaweedfs.rdma.client.NeedleClient;
import org.seaweedfs.rdma.client.NeedleException;
import org.seaweedfs.rdma.client.NeedleInfo;
import org.seaweedfs.rdma.cluster.ClusteredVertx;
import org.seaweedfs.rdma.config.ClusterConfig;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.config.RdmaConfig;

/**
 * Two clustered Vert.x instances on loopback (Hazelcast, TCP join): one runs the sidecar (reading from the shared
 * stack's agent over UCX), the other only joins the cluster and reads with {@link NeedleClient#overEventBus}: the
 * reply crosses the wire, so it must be readable on a node that knows none of the sidecar's codecs.
 */
@ExtendWith(SharedStack.class)
class ClusteredEventBusEndToEndTest {

    @Test
    void aMemberOfTheClusterReadsNeedlesFromASidecarOnAnotherNode() throws Exception {
        SharedStack.Running stack = SharedStack.get();
        int clusterPort = freePort();
        RdmaConfig config = ConfigLoader.parse(Stack.sidecarYaml(stack.agent.agentPort(), "")
                + "cluster: {enabled: true, host: 127.0.0.1, port: " + clusterPort + "}\n", "clustered sidecar", Map.of());
        Vertx sidecarVertx = await(ClusteredVertx.create(config.cluster(), new VertxOptions(), null));
        Vertx consumer = null;
        SeaweedRdma sidecar = null;
        try {
            assertTrue(sidecarVertx.isClustered());
            sidecar = await(SeaweedRdma.deploy(sidecarVertx, config, null));
            consumer = await(ClusteredVertx.create(new ClusterConfig(true, "127.0.0.1", 0,
                    List.of(new HostPort("127.0.0.1", clusterPort))), new VertxOptions(), null));
            NeedleClient client = NeedleClient.overEventBus(consumer);
            List<FixtureNeedles.Expected> needles = FixtureNeedles.live(stack.volumes, 2);
            String first = needles.get(0).fid().toString();
            awaitReachable(consumer, client, first);
            for (FixtureNeedles.Expected e : needles) {
                String fid = e.fid().toString();
                Needle n = onContext(consumer, () -> client.read(fid));
                assertArrayEquals(e.plain(), n.body().getBytes(), fid);
                assertEquals(e.etag(), n.etag(), fid);
                assertEquals(e.plain().length, n.size(), fid);
                assertEquals("rdma", n.source(), fid);
            }
            NeedleInfo info = onContext(consumer, () -> client.stat(first));
            assertEquals(needles.get(0).etag(), info.etag());
            NeedleException missing = failure(consumer, () -> client.read("2,7777777712345678"));
            assertEquals(NeedleException.Kind.NOT_FOUND, missing.kind());
            assertEquals(404, missing.code());
        } finally {
            if (consumer != null) {
                await(consumer.close());
            }
            if (sidecar != null) {
                await(sidecar.close());
            }
            await(sidecarVertx.close());
        }
    }

    /** Subscriptions reach a new member through Hazelcast: retries while the address has no handler yet. */
    private static void awaitReachable(Vertx vertx, NeedleClient client, String fid) {
        Stack.eventually("the sidecar's address is known on the consumer's node", () -> {
            try {
                onContext(vertx, () -> client.stat(fid));
                return true;
            } catch (RuntimeException e) {
                NeedleException ne = cause(e);
                if (ne == null || ne.kind() != NeedleException.Kind.UNAVAILABLE) {
                    throw e;
                }
                return false;
            }
        });
    }

    private static <T> T onContext(Vertx vertx, java.util.function.Supplier<Future<T>> call) {
        Promise<T> result = Promise.promise();
        vertx.getOrCreateContext().runOnContext(v -> call.get().onComplete(result));
        return await(result.future());
    }

    private static NeedleException failure(Vertx vertx, java.util.function.Supplier<Future<Needle>> call) {
        try {
            onContext(vertx, call);
        } catch (RuntimeException e) {
            NeedleException ne = cause(e);
            if (ne != null) {
                return ne;
            }
            throw e;
        }
        throw new AssertionError("the read succeeded");
    }

    private static NeedleException cause(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof NeedleException ne) {
                return ne;
            }
        }
        return null;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
    }
}
