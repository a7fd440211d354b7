import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.util.Arrays;
import java.util.Locale;

/**
 * The event bus's floor, a peer for the event-bus latency target: a consumer answering every request at once with a
 * 4 KiB buffer (no read path), a requester verticle on another event loop sending one request at a time, both on
 * a plain Vert.x.vertx() as an embedding application gets it. Its p50 is what two event loops handing a message back
 * and forth cost on this host: the requester's loop wakes the consumer's, and the consumer's wakes it back.
 *
 *   java -cp target/seaweedfs-rdma-sidecar.jar bench/peers/EventBusPingPong.java [REQUESTS]
 *
 * Prints one JSON line.
 */
public class EventBusPingPong {

    public static void main(String[] args) throws Exception {
        int requests = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        Vertx vertx = Vertx.vertx();
        Buffer body = Buffer.buffer(new byte[4096]);
        Context[] consumer = new Context[1];
        vertx.deployVerticle(new VerticleBase() {
            @Override
            public Future<?> start() {
                consumer[0] = context;
                return vertx.eventBus().consumer("pingpong", m -> m.reply(body)).completion();
            }
        }).await();
        Requester requester = null;
        for (int tries = 0; tries < 64 && requester == null; tries++) {
            Requester r = new Requester(requests);
            vertx.deployVerticle(r).await();
            if (r.thread() != threadOf(consumer[0])) {
                requester = r;
            }
        }
        if (requester == null) {
            throw new IllegalStateException("no requester verticle landed off the consumer's event loop");
        }
        System.out.println(requester.run().await());
        vertx.close().await();
    }

    private static Thread threadOf(Context context) {
        Promise<Thread> thread = Promise.promise();
        context.runOnContext(v -> thread.complete(Thread.currentThread()));
        return thread.future().await();
    }

    static final class Requester extends VerticleBase {
        private final long[] latencies;

        Requester(int requests) {
            this.latencies = new long[requests];
        }

        Thread thread() {
            return threadOf(context);
        }

        Future<String> run() {
            Promise<String> result = Promise.promise();
            context.runOnContext(v -> next(-2_000, result)); // 2,000 warm-up requests first
            return result.future();
        }

        private void next(int i, Promise<String> result) {
            if (i == latencies.length) {
                Arrays.sort(latencies);
                result.complete(String.format(Locale.ROOT, "{\"impl\":\"vertx-pingpong\",\"kind\":\"eventbus\",\"size\":4096,"
                        + "\"requests\":%d,\"p50_us\":%.1f,\"p99_us\":%.1f}", latencies.length,
                        latencies[latencies.length / 2] / 1e3, latencies[(int) (latencies.length * 0.99)] / 1e3));
                return;
            }
            long t0 = System.nanoTime();
            vertx.eventBus().<Buffer>request("pingpong", "").onComplete(ar -> {
                if (ar.failed()) {
                    result.fail(ar.cause());
                    return;
                }
                if (i >= 0) {
                    latencies[i] = System.nanoTime() - t0;
                }
                next(i + 1, result);
            });
        }
    }
}
