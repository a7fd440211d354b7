import io.vertx.core.AbstractVerticle;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.seaweedfs.rdma.SeaweedRdma;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.config.RdmaConfig;
import org.seaweedfs.rdma.metrics.RdmaMetrics;

/**
 * The event-bus half of an A/B between two builds (bench/ab.sh): it uses only what every build of the library
 * exports (SeaweedRdma.deploy, ConfigLoader.parse, RdmaMetrics, the seaweedfs.needle.read address), so the
 * same source runs against each jar as a single-file program:
 *
 *   java -cp JAR bench/ab/EventBusAb.java SIDECAR_CONF PATHS_FILE SECONDS same-loop|other-loop|typed
 *
 * The sidecar runs in this JVM (its agent is another process). A requester verticle placed on the consumer's event
 * loop or on another one keeps 64 reads in flight for SECONDS (three times; the median counts), then sends
 * 20,000 one at a time for the latency. Prints one line: label-free JSON, every answer's length checked. With
 * {@code typed} the requester reads through the typed client ({@code SeaweedRdma.client()}) on whichever loop.
 */
public class EventBusAb {

    public static void main(String[] args) throws Exception {
        Path conf = Path.of(args[0]);
        List<String> fids = Files.readAllLines(Path.of(args[1])).stream().map(String::strip)
                .filter(s -> !s.isEmpty()).map(s -> s.startsWith("/") ? s.substring(1) : s).toList();
        double seconds = Double.parseDouble(args[2]);
        boolean sameLoop = args[3].equals("same-loop");
        boolean typed = args[3].equals("typed");
        RdmaConfig config = ConfigLoader.parse(Files.readString(conf), conf.toString(), Map.of());
        RdmaMetrics metrics = config.metrics().enabled() ? RdmaMetrics.create() : null;
        Vertx vertx = metrics == null ? Vertx.vertx() : metrics.newVertx(new VertxOptions());
        SeaweedRdma server = SeaweedRdma.deploy(vertx, config, metrics).await();
        Thread[] consumer = new Thread[1];
        vertx.eventBus().addOutboundInterceptor(dc -> {
            if (consumer[0] == null && !dc.message().address().startsWith("seaweedfs.")) {
                consumer[0] = Thread.currentThread(); // a reply leaves from the consumer's thread
            }
            dc.next();
        });
        JsonObject first = new JsonObject().put("fid", fids.get(0));
        vertx.eventBus().request("seaweedfs.needle.read", first).await();
        Requester requester = null;
        for (int tries = 0; tries < 64 && requester == null; tries++) {
            Requester r = new Requester(fids, seconds, typed ? server.client() : null);
            vertx.deployVerticle(r).await();
            if (typed || (r.thread == consumer[0]) == sameLoop) {
                requester = r;
            }
        }
        if (requester == null) {
            throw new IllegalStateException("no requester verticle landed " + args[3] + " with the consumer " + consumer[0]);
        }
        Requester chosen = requester;
        chosen.consumer = consumer[0] != null ? consumer[0] : chosen.thread;
        chosen.begin();
        System.out.println(chosen.result.future().await());
        server.close().await();
        vertx.close().await();
        System.exit(0);
    }

    /** Issues the reads from its own event loop. */
    static final class Requester extends AbstractVerticle {
        final List<String> fids;
        final double seconds;
        final Promise<String> result = Promise.promise();
        volatile Thread thread;
        private int next;
        private int size;
        Thread consumer;
        /** The typed client to read through; null: the event bus. */
        final org.seaweedfs.rdma.client.NeedleClient client;
        private long[] cpuStart; // CPU when the 64-in-flight runs began: process (the sidecar's too), consumer, requester
        private long reads; // reads those runs completed

        Requester(List<String> fids, double seconds, org.seaweedfs.rdma.client.NeedleClient client) {
            this.fids = fids;
            this.seconds = seconds;
            this.client = client;
        }

        /** One read's body length, through the event bus or the typed client. */
        private io.vertx.core.Future<Integer> readLength(String fid) {
            return client != null ? client.read(fid).map(n -> n.body().length())
                    : vertx.eventBus().<Buffer>request("seaweedfs.needle.read", new JsonObject().put("fid", fid))
                            .map(m -> m.body().length());
        }

        @Override
        public void start(Promise<Void> started) {
            vertx.runOnContext(v -> thread = Thread.currentThread());
            vertx.runOnContext(v -> started.complete());
        }

        /** Keeps {@code inFlight} reads going until {@code until} (ns); then calls {@code done} with the count. */
        private void run(int inFlight, long until, int limit, long[] latencies, java.util.function.IntConsumer done) {
            int[] state = {0, inFlight}; // reads completed, requests outstanding
            for (int i = 0; i < inFlight; i++) {
                issue(until, limit, latencies, state, done);
            }
        }

        private void issue(long until, int limit, long[] latencies, int[] state, java.util.function.IntConsumer done) {
            long t0 = System.nanoTime();
            String fid = fids.get(next++ % fids.size());
            readLength(fid).onComplete(ar -> {
                if (ar.failed()) {
                    result.tryFail(ar.cause());
                    return;
                }
                int length = ar.result();
                if (size == 0) {
                    size = length;
                } else if (length != size) {
                    result.tryFail(new IllegalStateException(fid + ": " + length + " bytes, not " + size));
                    return;
                }
                if (latencies != null) {
                    latencies[state[0]] = System.nanoTime() - t0;
                }
                state[0]++;
                if (System.nanoTime() < until && state[0] + state[1] - 1 < limit) {
                    issue(until, limit, latencies, state, done);
                } else if (--state[1] == 0) {
                    done.accept(state[0]);
                }
            });
        }

        /**
         * CPU time of this JVM, of the consumer's event loop and of this requester's. Throughput here is bound by the
         * consumer's loop and by how often either loop sleeps and must be woken; the consumer's CPU per read is what
         * a build's read path costs.
         */
        private long[] cpuNanos() {
            java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
            long process = ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                    .getOperatingSystemMXBean()).getProcessCpuTime();
            return new long[] {process, threads.getThreadCpuTime(consumer.getId()), threads.getThreadCpuTime(thread.getId())};
        }

        /** Starts the measurement on this verticle's event loop. */
        void begin() {
            context.runOnContext(v -> measure());
        }

        private void measure() {
            long warm = System.nanoTime() + 6_000_000_000L; // JIT and pools warm
            double[] rates = new double[3];
            run(64, warm, Integer.MAX_VALUE, null, w -> round(rates, 0));
        }

        private void round(double[] rates, int i) {
            if (i == 0) {
                cpuStart = cpuNanos();
            }
            if (i == rates.length) {
                long[] cpu = cpuNanos();
                String cpuPerRead = String.format(Locale.ROOT, "\"cpu_us_per_read\":%.2f,\"consumer_cpu_us_per_read\":%.2f,"
                        + "\"requester_cpu_us_per_read\":%.2f", (cpu[0] - cpuStart[0]) / 1e3 / reads,
                        (cpu[1] - cpuStart[1]) / 1e3 / reads, (cpu[2] - cpuStart[2]) / 1e3 / reads);
                long[] lat = new long[20_000];
                run(1, Long.MAX_VALUE, lat.length, lat, n -> {
                    Arrays.sort(lat, 0, n);
                    double[] sorted = rates.clone();
                    Arrays.sort(sorted);
                    result.tryComplete(String.format(Locale.ROOT,
                            "{\"kind\":\"eventbus\",\"size\":%d,\"ops_s\":%.0f,\"ops_s_runs\":%s,\"p50_us\":%.1f,\"p99_us\":%.1f,%s}",
                            size, sorted[1], Arrays.toString(rates), lat[n / 2] / 1e3, lat[(int) (n * 0.99)] / 1e3,
                            cpuPerRead));
                });
                return;
            }
            long t0 = System.nanoTime();
            run(64, t0 + (long) (seconds * 1e9), Integer.MAX_VALUE, null, n -> {
                rates[i] = Math.round(n / ((System.nanoTime() - t0) / 1e9));
                reads += n;
                round(rates, i + 1);
            });
        }
    }
}
