package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.SeaweedRdma;
import org.seaweedfs.rdma.client.Needle;
import org.seaweedfs.rdma.client.NeedleClient;
import org.seaweedfs.rdma.client.NeedleException;
import org.seaweedfs.rdma.client.NeedleInfo;
import org.seaweedfs.rdma.client.NeedleResult;
import org.seaweedfs.rdma.cluster.ClusteredVertx;
import org.seaweedfs.rdma.config.ClusterConfig;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.config.RdmaConfig;

/**
 * Two clustered Vert.x instances on loopback (Hazelcast, TCP join): one runs the sidecar (reading from the shared
 * stack's agent over UCX), the other only joins the cluster and reads with {@link NeedleClient#overEventBus}: the
 * reply crosses the wire, so it must be readable on a node that knows none of the sidecar's codecs. The example
 * application (examples/eventbus-consumer) does the same from a JVM of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(SharedStack.class)
class ClusteredEventBusEndToEndTest {

    private int clusterPort;
    private Vertx sidecarVertx;
    private SeaweedRdma sidecar;
    private List<FixtureNeedles.Expected> needles;

    /** A sidecar on a clustered Vert.x, started as {@code serve} starts one with {@code cluster.enabled}. */
    @BeforeAll
    void clusteredSidecar() throws IOException {
        SharedStack.Running stack = SharedStack.get();
        RdmaConfig config = null;
        // The members need the port before Hazelcast binds it: another process can take a free port in between
        // (seen once in a full run), so a port found taken is replaced by another.
        for (int attempt = 1; sidecarVertx == null; attempt++) {
            clusterPort = freePort();
            config = ConfigLoader.parse(Stack.sidecarYaml(stack.agent.agentPort(), "")
                    + "cluster: {enabled: true, host: 127.0.0.1, port: " + clusterPort + "}\n", "clustered sidecar",
                    Map.of());
            try {
                sidecarVertx = await(ClusteredVertx.create(config.cluster(), new VertxOptions(), null));
            } catch (RuntimeException e) {
                if (attempt == 3 || !portTaken(e)) {
                    throw e;
                }
            }
        }
        sidecar = await(SeaweedRdma.deploy(sidecarVertx, config, null));
        needles = FixtureNeedles.live(stack.volumes, 2);
    }

    @AfterAll
    void stop() {
        if (sidecar != null) {
            await(sidecar.close());
        }
        if (sidecarVertx != null) {
            await(sidecarVertx.close());
        }
    }

    @Test
    void aMemberOfTheClusterReadsNeedlesFromASidecarOnAnotherNode() {
        assertTrue(sidecarVertx.isClustered());
        Vertx consumer = await(ClusteredVertx.create(new ClusterConfig(true, "127.0.0.1", 0,
                List.of(new HostPort("127.0.0.1", clusterPort))), new VertxOptions(), null));
        try {
            NeedleClient client = NeedleClient.overEventBus(consumer);
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
            // readMany's frame crosses the cluster as a plain buffer: every needle, and the failure in its place.
            List<String> fids = new java.util.ArrayList<>(needles.stream().map(e -> e.fid().toString()).toList());
            fids.add(1, "2,7777777712345678");
            List<NeedleResult> many = onContext(consumer, () -> client.readMany(fids));
            assertEquals(fids.size(), many.size());
            assertEquals(NeedleException.Kind.NOT_FOUND, many.get(1).failure().kind());
            for (int i = 0, k = 0; i < fids.size(); i++) {
                if (i == 1) {
                    continue;
                }
                FixtureNeedles.Expected e = needles.get(k++);
                assertArrayEquals(e.plain(), many.get(i).orThrow().body().getBytes(), fids.get(i));
                assertEquals(e.etag(), many.get(i).needle().etag(), fids.get(i));
            }
        } finally {
            await(consumer.close());
        }
    }

    /**
     * examples/eventbus-consumer, built by Maven against the library jar and run in its own JVM: one line
     * {@code FID SHA256 LENGTH SOURCE} per needle read, exit 1 when a read failed, 0 when all succeeded.
     */
    @Test
    void theExampleConsumerInItsOwnJvmReadsTheRightBytes(@TempDir Path work) throws Exception {
        ExampleBuild.build(work);
        List<FixtureNeedles.Expected> some = needles.subList(0, Math.min(3, needles.size()));
        List<String> fids = new java.util.ArrayList<>(some.stream().map(e -> e.fid().toString()).toList());
        fids.add("2,7777777712345678");
        Run failing = consume(work, "failing", fids);
        assertEquals(1, failing.status, failing.toString());
        List<String> expected = some.stream().map(e -> e.fid() + " " + sha256(e.plain()) + " " + e.plain().length
                + " rdma").toList();
        assertEquals(expected, failing.lines(), failing.toString());
        assertTrue(failing.err.contains("2,7777777712345678: failed (404 NOT_FOUND)"), failing.toString());

        Run ok = consume(work, "ok", fids.subList(0, 1));
        assertEquals(0, ok.status, ok.toString());
        assertEquals(expected.subList(0, 1), ok.lines(), ok.toString());
    }

    private record Run(int status, String out, String err) {
        List<String> lines() {
            return out.lines().filter(l -> !l.isBlank()).toList();
        }
    }

    private Run consume(Path work, String name, List<String> fids) throws Exception {
        List<String> command =
                new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-jar", ExampleBuild.JAR.toString(), "--members", "127.0.0.1:" + clusterPort));
        command.addAll(fids);
        Path out = work.resolve(name + ".out");
        Path err = work.resolve(name + ".err");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the example consumer did not finish: " + Files.readString(err));
        }
        return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
    }

    private static String sha256(byte[] bytes) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** Subscriptions reach a new member through Hazelcast: retries while the address has no handler yet. */
    private static void awaitReachable(Vertx vertx, NeedleClient client, String fid) {
        org.seaweedfs.rdma.testing.Await.until("the sidecar's address is known on the consumer's node", () -> {
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
        }, reachable -> reachable);
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

    private static boolean portTaken(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (String.valueOf(t.getMessage()).contains("already in use")) {
                return true;
            }
        }
        return false;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
    }
}
