package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.seaweedfs.rdma.polling.PollingPolicy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * By-hand latency probe (not a test): one outstanding get at a time through the public API, between two workers in
 * two Vert.x instances of this JVM. Args: tls size-bytes iterations [idlePollMicros]; other UCX settings go in the
 * environment (UCX_RNDV_THRESH=64K ...), where UCX reads those the library does not set. System property
 * {@code noPeerErrorHandling=true} turns peer error handling off. Prints p50/p99/mean in microseconds, measured from
 * the call to the completion on the caller's context.
 */
public final class UcxGetLatencyMain {

    public static void main(String[] args) throws Exception {
        String tls = args.length > 0 ? args[0] : UcxSettings.DEFAULT_TLS;
        int size = args.length > 1 ? Integer.parseInt(args[1]) : 4096;
        int iterations = args.length > 2 ? Integer.parseInt(args[2]) : 20_000;
        int idlePollMicros = args.length > 3 ? Integer.parseInt(args[3]) : PollingPolicy.DEFAULT_MICROS;
        UcxSettings settings = new UcxSettings(tls, "all", !Boolean.getBoolean("noPeerErrorHandling"),
                UcxSettings.mayUseRdma(tls), idlePollMicros);
        Vertx serverVertx = Vertx.vertx();
        Vertx clientVertx = Vertx.vertx();
        try {
            UcxWorkerVerticle server = new UcxWorkerVerticle(settings);
            UcxWorkerVerticle client = new UcxWorkerVerticle(settings);
            await(serverVertx.deployVerticle(server));
            await(clientVertx.deployVerticle(client));
            UcxListener listener = await(server.listen("127.0.0.1", 0, ch -> { }));
            ByteBuffer served = ByteBuffer.allocateDirect(size);
            for (int i = 0; i < size; i++) {
                served.put(i, (byte) i);
            }
            UcxMemoryRegion remote = await(server.register(served));
            UcxMemoryRegion local = await(client.register(ByteBuffer.allocateDirect(size)));
            Context context = clientVertx.getOrCreateContext();
            UcxChannel channel = await(client.connect("127.0.0.1", listener.port()));
            UcxRemoteKey key = await(channel.unpackRemoteKey(remote.packedRemoteKey()));
            long[] samples = new long[iterations];
            CompletableFuture<Void> done = new CompletableFuture<>();
            int warmup = Math.min(2000, iterations);
            Runnable[] next = new Runnable[1];
            int[] i = {-warmup};
            next[0] = () -> {
                long start = System.nanoTime();
                channel.get(remote.address(), key, local.address(), size).onComplete(ar -> {
                    if (ar.failed()) {
                        done.completeExceptionally(ar.cause());
                        return;
                    }
                    int n = i[0]++;
                    if (n >= 0) {
                        samples[n] = System.nanoTime() - start;
                    }
                    if (i[0] == iterations) {
                        done.complete(null);
                    } else {
                        next[0].run();
                    }
                });
            };
            context.runOnContext(v -> next[0].run());
            done.get(5, TimeUnit.MINUTES);
            Arrays.sort(samples);
            double mean = Arrays.stream(samples).average().orElse(0) / 1000.0;
            System.out.printf("tls=%s size=%d n=%d idlePoll=%d: p50 %.1f us, p99 %.1f us, mean %.1f us%n",
                    tls, size, iterations, settings.idlePollMicros(),
                    samples[iterations / 2] / 1000.0, samples[(int) (iterations * 0.99)] / 1000.0, mean);
        } finally {
            await(clientVertx.close());
            await(serverVertx.close());
        }
    }

    private static <T> T await(Future<T> future) throws Exception {
        return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
}
