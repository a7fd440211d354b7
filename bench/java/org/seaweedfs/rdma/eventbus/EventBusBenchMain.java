package org.seaweedfs.rdma.eventbus;

import static org.seaweedfs.rdma.bench.BenchSupport.await;
import static org.seaweedfs.rdma.bench.BenchSupport.onContext;
import static org.seaweedfs.rdma.bench.BenchSupport.pct;
import static org.seaweedfs.rdma.bench.BenchSupport.pctsJson;
import static org.seaweedfs.rdma.bench.BenchSupport.until;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VerticleBase;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryContext;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;
import org.seaweedfs.rdma.SeaweedRdma;
import org.seaweedfs.rdma.client.Needle;
import org.seaweedfs.rdma.client.NeedleClient;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.config.RdmaConfig;
import org.seaweedfs.rdma.metrics.RdmaMetrics;
import java.time.Duration;
import java.util.Objects;

/**
 * Reads in the sidecar's own JVM (bench/run.sh, hook_eventbus), not a test: deploys the sidecar of {@code --conf}
 * with {@link SeaweedRdma#deploy} (its agent runs as another process), then per mode ({@code --modes}, default
 * both) and per needle list: {@code eventbus} sends {@code seaweedfs.needle.read} requests from one event-loop
 * context; {@code client} reads with {@code SeaweedRdma.client()} from a verticle's own event loop (no event-bus hop).
 * Each: one read checked against the plain file, warm-up, one-outstanding latency (call to completion), then
 * {@code --concurrency} reads in flight for {@code --seconds}, {@code --runs} times (default 3; ops_s is their
 * median, ops_s_runs each run). Prints one JSON line per mode and list (kind {@code eventbus} or {@code client}).
 * <pre>
 *   java -cp "$(source bench/lib/mains.sh; build_mains target/seaweedfs-rdma-sidecar.jar bench/out/mains)"
 * org.seaweedfs.rdma.eventbus.EventBusBenchMain \
 *       --conf sidecar.yaml --plain DIR [--seconds 5] [--concurrency 64] [--iters 20000] [--warmup-seconds 3] [--runs
 * 3] \
 *       [--modes eventbus,client] PATHS_FILE...
 * </pre>
 */
public final class EventBusBenchMain {

    public static void main(String[] args) throws Exception {
        Path conf = null;
        Path plain = null;
        double seconds = 5;
        int concurrency = 64;
        int iters = 20_000;
        double warmupSeconds = 3;
        int runs = 3;
        List<String> modes = List.of("eventbus", "client");
        String requester = "any";
        List<String> lists = new java.util.ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--conf" -> conf = Path.of(args[++i]);
                case "--plain" -> plain = Path.of(args[++i]);
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                case "--concurrency" -> concurrency = Integer.parseInt(args[++i]);
                case "--iters" -> iters = Integer.parseInt(args[++i]);
                case "--warmup-seconds" -> warmupSeconds = Double.parseDouble(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--modes" -> modes = List.of(args[++i].split(","));
                case "--requester" -> requester = args[++i];
                default -> lists.add(args[i]);
            }
        }
        if (conf == null || plain == null || lists.isEmpty()) {
            throw new IllegalArgumentException("usage: --conf FILE --plain DIR [--seconds S] [--concurrency N] "
                    + "[--iters N] [--runs N] "
                    + "[--modes eventbus,client] [--requester any|same-loop|other-loop] PATHS_FILE...");
        }
        if (!List.of("any", "same-loop", "other-loop").contains(requester)) {
            throw new IllegalArgumentException("--requester must be any, same-loop or other-loop, got " + requester);
        }
        Embedded embedded = Embedded.deploy(conf);
        Vertx vertx = embedded.vertx();
        SeaweedRdma server = embedded.server();
        try {
            for (String mode : modes) {
                for (String list : lists) {
                    String[] fids = fids(Path.of(list));
                    Bench bench = bench(mode, vertx, server, fids);
                    if (mode.equals("eventbus") && !requester.equals("any")) {
                        bench.ready(plain, 30_000);
                        bench = placed(bench, vertx, embedded.consumer()[0], requester.equals("same-loop"));
                    }
                    measure(bench, mode, requester, plain, seconds, concurrency, iters, warmupSeconds, runs);
                }
            }
        } finally {
            embedded.close();
        }
        System.exit(0);
    }

    /** The file ids of a path list ("/3,01637037d6" per line). */
    static String[] fids(Path list) throws java.io.IOException {
        return Files.readAllLines(list).stream().map(String::strip).filter(s -> !s.isEmpty())
                .map(s -> s.startsWith("/") ? s.substring(1) : s).toArray(String[]::new);
    }

    /**
     * The sidecar of a configuration deployed in this JVM with {@link SeaweedRdma#deploy}, and the thread its event-bus
     * consumer replies from (learnt from the first answer).
     */
    record Embedded(Vertx vertx, SeaweedRdma server, Thread[] consumer) {

        static Embedded deploy(Path conf) throws Exception {
            RdmaConfig config = ConfigLoader.parse(Files.readString(conf), conf.toString(), System.getenv());
            // As `serve` does: with metrics on, Vert.x's own (event-bus) metrics and the read meters are recorded too.
            RdmaMetrics metrics = config.metrics().enabled() ? RdmaMetrics.create() : null;
            Vertx vertx = metrics == null ? Vertx.vertx() : metrics.newVertx(new VertxOptions());
            SeaweedRdma server = await(SeaweedRdma.deploy(vertx, config, metrics));
            Thread[] consumer = new Thread[1];
            // Learns the consumer's thread from its first reply, then goes: an interceptor puts every message of
            // the run on the event bus's slower delivery path, which an application without one does not pay.
            Handler<DeliveryContext<Object>> learn = new Handler<>() {
                @Override
                public void handle(DeliveryContext<Object> dc) {
                    if (!EventBusApiVerticle.READ_ADDRESS.equals(dc.message().address()) && consumer[0] == null) {
                        consumer[0] = Thread.currentThread();
                        vertx.eventBus().removeOutboundInterceptor(this);
                    }
                    dc.next();
                }
            };
            vertx.eventBus().addOutboundInterceptor(learn);
            return new Embedded(vertx, server, consumer);
        }

        void close() {
            await(server.close());
            await(vertx.close());
        }
    }

    /**
     * eventbus: {@code seaweedfs.needle.read} requests from an event-loop context; client: {@code SeaweedRdma.client()}
     * reads from a verticle's own event loop (no event-bus hop).
     */
    static Bench bench(String mode, Vertx vertx, SeaweedRdma server, String[] fids) throws Exception {
        return switch (mode) {
            case "eventbus" -> {
                JsonObject[] requests =
                        Arrays.stream(fids).map(f -> new JsonObject().put("fid", f)).toArray(JsonObject[]::new);
                yield new Bench(vertx.getOrCreateContext(), fids,
                        i ->
                                vertx.eventBus().<Buffer>request(EventBusApiVerticle.READ_ADDRESS,
                                requests[i]).map(Message::body));
            }
            case "client" -> {
                NeedleClient client = server.client();
                ContextVerticle verticle = new ContextVerticle();
                await(vertx.deployVerticle(verticle));
                yield new Bench(verticle.context(), fids, i -> client.read(fids[i]).map(Needle::body));
            }
            default -> throw new IllegalArgumentException("--modes: eventbus or client, not " + mode);
        };
    }

    /** A verticle of the application: the client mode reads from its event loop. */
    private static final class ContextVerticle extends VerticleBase {
        Context context() {
            return context;
        }
    }

    private static void measure(Bench bench, String mode, String requester, Path plain, double seconds, int concurrency,
            int iters,
                                double warmupSeconds, int runs) throws Exception {
        bench.ready(plain, 30_000);
        // Warm-up (JIT, pool, mirror) at the throughput phase's concurrency, then one at a time.
        bench.run(Integer.MAX_VALUE, null, System.nanoTime() + (long) (warmupSeconds * 1e9), concurrency);
        bench.run(iters / 10, null, Long.MAX_VALUE, 1);
        long[] samples = new long[iters];
        int n = bench.run(iters, samples, System.nanoTime() + (long) (seconds * 1e9), 1);
        long[] lat = Arrays.copyOf(samples, n);
        Arrays.sort(lat);
        // Throughput: the median of several runs (all printed), as one run on a shared VM can land on a
        // neighbour's burst.
        double[] rates = new double[runs];
        long done = 0;
        for (int r = 0; r < runs; r++) {
            long t0 = System.nanoTime();
            int reads = bench.run(Integer.MAX_VALUE, null, System.nanoTime() + (long) (seconds * 1e9), concurrency);
            rates[r] = reads / ((System.nanoTime() - t0) / 1e9);
            done += reads;
        }
        double median = median(rates);
        System.out.printf(Locale.ROOT,
                "{\"impl\":\"java-%s\",\"kind\":\"%s\",\"requester\":\"%s\",\"size\":%d,\"concurrency\":%d,"
                        + "\"ops_s\":%.1f,\"ops_s_runs\":[%s],\"gbps\":%.3f,\"p50_us\":%.2f,\"p99_us\":%.2f,"
                        + "\"mean_us\":%.2f,"
                        + "\"lat_samples\":%d,\"reads\":%d,\"pcts_us\":{%s}}%n",
                mode, mode, mode.equals("eventbus") ? requester : "same-loop", bench.size, concurrency, median,
                Arrays.stream(rates).mapToObj(x ->
                        String.format(Locale.ROOT, "%.1f", x)).collect(java.util.stream.Collectors.joining(",")),
                median * bench.size / 1e9,
                pct(lat, 50), pct(lat, 99), Arrays.stream(lat).average().orElse(0) / 1e3, n, done, pctsJson(lat));
        System.out.flush();
    }

    /** {@code bench}'s requests, moved to an event loop on (or off) the consumer's thread. */
    static Bench placed(Bench bench, Vertx vertx, Thread consumer, boolean sameLoop) throws Exception {
        Context context = bench.context;
        for (int tries = 0; tries < 256 && onConsumerLoop(context, consumer) != sameLoop; tries++) {
            context = newEventLoopContext(vertx);
        }
        if (onConsumerLoop(context, consumer) != sameLoop) {
            throw new IllegalStateException("no requester context " + (sameLoop ? "on" : "off")
                    + " the consumer's loop " + consumer);
        }
        return new Bench(context, bench.fids, bench.read);
    }

    /** A fresh event-loop context: the one of a verticle that does nothing (deployments take the loops in turn). */
    private static Context newEventLoopContext(Vertx vertx) throws Exception {
        Context[] made = new Context[1];
        await(vertx.deployVerticle(new io.vertx.core.VerticleBase() {
            @Override
            public Future<?> start() {
                made[0] = context;
                return Future.succeededFuture();
            }
        }));
        return made[0];
    }

    private static boolean onConsumerLoop(Context context, Thread consumer) throws Exception {
        return await(onContext(context, () -> Future.succeededFuture(Thread.currentThread() == consumer)));
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    /** Reads over one list of needles, from one context. */
    static final class Bench {
        final Context context;
        final String[] fids;
        final IntFunction<Future<Buffer>> read;
        int size;
        int next;

        Bench(Context context, String[] fids, IntFunction<Future<Buffer>> read) {
            this.context = context;
            this.fids = fids;
            this.read = read;
        }

        /** Until a read answers (the sidecar connects to its agent in the background), then checks its bytes. */
        void ready(Path plain, long timeoutMs) throws Exception {
            Buffer got = until("an event-bus read of " + fids[0], () -> {
                try {
                    return await(onContext(context, () -> read.apply(0)));
                } catch (RuntimeException e) {
                    return null;
                }
            }, Objects::nonNull, Duration.ofMillis(timeoutMs));
            byte[] want = Files.readAllBytes(plain.resolve(fids[0]));
            if (!Arrays.equals(got.getBytes(), want)) {
                throw new IllegalStateException("event-bus read of " + fids[0] + " differs from "
                        + plain.resolve(fids[0]));
            }
            size = want.length;
        }

        /** Whether needle {@code index} reads as the bytes of its plain file (a failed read does not). */
        boolean matches(Path plain, int index) throws java.io.IOException {
            byte[] want = Files.readAllBytes(plain.resolve(fids[index]));
            try {
                return Arrays.equals(await(onContext(context, () -> read.apply(index))).getBytes(), want);
            } catch (RuntimeException e) {
                return false;
            }
        }

        /** {@code lanes} reads in flight until {@code count} are done or the deadline passes; the number done. */
        int run(int count, long[] samples, long deadline, int lanes) throws Exception {
            return await(onContext(context, () -> {
                Promise<Integer> done = Promise.promise();
                int[] state = {0, 0, lanes}; // issued, completed, live lanes
                for (int i = 0; i < lanes; i++) {
                    issue(count, samples, deadline, state, done);
                }
                return done.future();
            }));
        }

        private void issue(int count, long[] samples, long deadline, int[] state, Promise<Integer> done) {
            state[0]++;
            int index = next++ % fids.length;
            long start = System.nanoTime();
            read.apply(index).onComplete(ar -> {
                if (ar.failed()) {
                    done.tryFail(ar.cause());
                    return;
                }
                long end = System.nanoTime();
                int i = state[1]++;
                if (samples != null && i < samples.length) {
                    samples[i] = end - start;
                }
                if (state[0] < count && end < deadline) {
                    issue(count, samples, deadline, state, done);
                } else if (--state[2] == 0) {
                    done.tryComplete(state[1]);
                }
            });
        }
    }
}
