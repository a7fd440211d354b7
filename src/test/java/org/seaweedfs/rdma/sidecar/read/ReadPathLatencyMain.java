package org.seaweedfs.rdma.sidecar.read;

import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.StaticAgentRouter;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;

import static org.seaweedfs.rdma.testing.Await.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.VolumeWriter;
import org.seaweedfs.rdma.testing.AgentHarness;

/**
 * By hand, not a test: read latency (one read at a time) and throughput (several in flight) through
 * {@link NeedleReader} against a real agent in another Vert.x instance, for 4 KiB and 1 MiB needles.
 * <pre>
 *   mvn -q -B -o test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt
 *   UCX_ERROR_SIGNALS= \
 *       java -cp target/classes:target/test-classes:$(cat /tmp/cp.txt) \
 *       org.seaweedfs.rdma.sidecar.ReadPathLatencyMain [ucx.tls, default sm,tcp,self; e.g. tcp,self]
 * </pre>
 * Without the two *_ERROR_HANDLING variables UCX drops shared memory (peer error handling is on) and uses TCP.
 * READ_DEBUG=1 prints the reader's counters every second.
 */
public final class ReadPathLatencyMain {

    public static void main(String[] args) throws Exception {
        String tls = args.length > 0 ? args[0] : "sm,tcp,self";
        Path dir = Files.createTempDirectory("read-path-latency");
        List<FileId> small = new ArrayList<>();
        List<FileId> large = new ArrayList<>();
        Random random = new Random(1);
        try (VolumeWriter writer = VolumeWriter.create(dir, "", 1, 3, IndexFormat.of(false))) {
            for (int key = 1; key <= 64; key++) {
                boolean big = key > 32;
                byte[] data = new byte[big ? 1 << 20 : 4096];
                random.nextBytes(data);
                writer.append(NewNeedle.builder(key, key, data).build());
                (big ? large : small).add(new FileId(1, key, key));
            }
        }
        try (AgentHarness agent = new AgentHarness(dir, tls, s -> s);
             ReadPathHarness.SidecarSide sidecar = new ReadPathHarness.SidecarSide(tls,
                     new RegisteredBufferPool.Settings(64 << 10, 256, 2 << 20, 32))) {
            NeedleReader reader = sidecar.reader(new StaticAgentRouter(sidecar.connect(agent.port(), null)),
                    ReadPathOptions.defaults());
            if (System.getenv("READ_DEBUG") != null) {
                sidecar.vertx.setPeriodic(1000, id -> System.out.println("reads " + reader.counters().reads()
                        + " served " + reader.counters().served() + " inflight " + reader.inFlight()
                        + " pool " + sidecar.pool.inUse() + " lookups " + reader.counters().lookups()
                        + " timeouts " + reader.counters().failures(ReadFailure.Kind.TIMEOUT)));
            }
            run("4 KiB", sidecar, reader, small, 50_000, 16);
            run("1 MiB", sidecar, reader, large, 2_000, 4);
        }
    }

    private static void run(String what, ReadPathHarness.SidecarSide sidecar, NeedleReader reader, List<FileId> fids,
                            int reads, int lanes) {
        await(ReadLoop.run(sidecar.vertx, reader, fids, reads / 5, 1, null)); // warm up
        long[] latencies = new long[reads];
        await(ReadLoop.run(sidecar.vertx, reader, fids, reads, 1, latencies));
        Arrays.sort(latencies);
        long t0 = System.nanoTime();
        long bytes = await(ReadLoop.run(sidecar.vertx, reader, fids, reads, lanes, null));
        double seconds = (System.nanoTime() - t0) / 1e9;
        System.out.printf("%s: one at a time p50 %.1f us, p99 %.1f us; %d in flight: %.0f reads/s, %.1f MB/s%n", what,
                latencies[reads / 2] / 1e3, latencies[(int) (reads * 0.99)] / 1e3, lanes, reads / seconds,
                bytes / seconds / 1e6);
    }
}
