package org.seaweedfs.rdma.bench;

import static org.seaweedfs.rdma.bench.BenchSupport.await;
import static org.seaweedfs.rdma.bench.BenchSupport.onContext;

import com.sun.management.OperatingSystemMXBean;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.seaweedfs.rdma.SeaweedRdma;
import org.seaweedfs.rdma.client.NeedleClient;
import org.seaweedfs.rdma.client.NeedleResult;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.config.RdmaConfig;
import org.seaweedfs.rdma.metrics.RdmaMetrics;

/**
 * readMany against one read at a time, by turns (bench/batch.sh), not a test: deploys the sidecar of {@code --conf} in
 * this JVM (its agent another process) and, from one event loop, reads the fids of PATHS_FILE with the typed client
 * ({@code SeaweedRdma.client()}) and over the event bus ({@code NeedleClient.overEventBus}), each face both ways:
 * {@code many} keeps 2 readMany calls of {@code --batch} fids in flight, {@code lend} the same with the needles lent
 * ({@code readMany(fids, each)}, the typed client only), {@code one} keeps {@code --concurrency} reads in flight.
 * {@code --rounds} rounds, the five runs of each in an order rotated by one per round, each {@code --seconds} long;
 * each run's needles/s and this process's CPU per needle (utime+stime of every thread: the sidecar and the caller,
 * which share the process) are printed as one JSON line, then for many and lend the ratio to one of each round and
 * their median. {@code --warm S} first runs each once for S seconds, not reported (the JIT); {@code --only FACE:MODE}
 * (e.g. {@code typed:lend}) runs that one alone, for a profiler.
 * <pre>
 *   java -cp "$cp" org.seaweedfs.rdma.bench.ReadManyBenchMain --conf sidecar.yaml --plain DIR [--rounds 5]
 *       [--seconds 3] [--batch 256] [--concurrency 64] [--warm 0] [--only typed:lend] PATHS_FILE
 * </pre>
 */
public final class ReadManyBenchMain {

    private static final OperatingSystemMXBean OS =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private record Run(String face, String mode) {
        /** Whether {@code --only} (null: every run) selects this run. */
        boolean selected(String only) {
            return only == null || only.equals(face + ":" + mode);
        }
    }

    public static void main(String[] args) throws Exception {
        Path conf = null;
        Path plain = null;
        Path list = null;
        int rounds = 5;
        double seconds = 3;
        int batch = 256;
        int concurrency = 64;
        String only = null;
        double warm = 0;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--conf" -> conf = Path.of(args[++i]);
                case "--plain" -> plain = Path.of(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                case "--batch" -> batch = Integer.parseInt(args[++i]);
                case "--concurrency" -> concurrency = Integer.parseInt(args[++i]);
                case "--only" -> only = args[++i];
                case "--warm" -> warm = Double.parseDouble(args[++i]);
                default -> list = Path.of(args[i]);
            }
        }
        if (conf == null || plain == null || list == null) {
            throw new IllegalArgumentException("usage: --conf FILE --plain DIR [--rounds N] [--seconds S] [--batch N]"
                    + " [--concurrency N] [--warm S] [--only FACE:MODE] PATHS_FILE");
        }
        RdmaConfig config = ConfigLoader.parse(Files.readString(conf), conf.toString(), System.getenv());
        RdmaMetrics metrics = config.metrics().enabled() ? RdmaMetrics.create() : null;
        Vertx vertx = metrics == null ? Vertx.vertx() : metrics.newVertx(new VertxOptions());
        SeaweedRdma server = await(SeaweedRdma.deploy(vertx, config, metrics));
        try {
            List<String> fids = Files.readAllLines(list).stream().map(String::strip).filter(s -> !s.isEmpty())
                    .map(s -> s.startsWith("/") ? s.substring(1) : s).toList();
            ContextVerticle caller = new ContextVerticle();
            await(vertx.deployVerticle(caller));
            NeedleClient typed = server.client();
            NeedleClient bus = NeedleClient.overEventBus(vertx);
            check(caller.context(), typed, fids, plain);
            check(caller.context(), bus, fids, plain);
            List<Run> runs = List.of(new Run("typed", "many"), new Run("typed", "lend"), new Run("typed", "one"),
                    new Run("bus", "many"), new Run("bus", "one"));
            double[][] rates = new double[rounds][runs.size()];
            for (Run run : warm > 0 ? runs : List.<Run>of()) { // the JIT: each run once, not reported
                if (run.selected(only)) {
                    await(onContext(caller.context(), loop(run, fids, warm, batch, concurrency, typed, bus)::start));
                }
            }
            for (int round = 0; round < rounds; round++) {
                for (int k = 0; k < runs.size(); k++) {
                    int index = (k + round) % runs.size();
                    Run run = runs.get(index);
                    if (!run.selected(only)) {
                        continue;
                    }
                    Loop loop = loop(run, fids, seconds, batch, concurrency, typed, bus);
                    long cpu0 = OS.getProcessCpuTime();
                    long t0 = System.nanoTime();
                    long needles = await(onContext(caller.context(), loop::start));
                    double elapsed = (System.nanoTime() - t0) / 1e9;
                    double cpuNs = (OS.getProcessCpuTime() - cpu0) / (double) needles;
                    rates[round][index] = needles / elapsed;
                    System.out.printf(Locale.ROOT, "{\"kind\":\"readmany\",\"face\":\"%s\",\"mode\":\"%s\","
                                    + "\"round\":%d,\"position\":%d,\"needles_s\":%.0f,\"cpu_ns_per_needle\":%.0f,"
                                    + "\"batch\":%d,\"concurrency\":%d}%n", run.face(), run.mode(), round, k,
                            needles / elapsed, cpuNs, batch, concurrency);
                }
            }
            if (only == null) {
                summary("typed", "many", rates, 0, 2);
                summary("typed", "lend", rates, 1, 2);
                summary("bus", "many", rates, 3, 4);
            }
        } finally {
            await(server.close());
            await(vertx.close());
        }
        System.exit(0);
    }

    private static Loop loop(Run run, List<String> fids, double seconds, int batch, int concurrency,
                             NeedleClient typed, NeedleClient bus) {
        NeedleClient client = run.face().equals("typed") ? typed : bus;
        return run.mode().equals("one") ? new Loop(fids, seconds, concurrency, 1, false, client)
                : new Loop(fids, seconds, 2, batch, run.mode().equals("lend"), client);
    }

    /** The runs at {@code many} against those at {@code one}, round by round: each ratio and their median. */
    private static void summary(String face, String mode, double[][] rates, int many, int one) {
        int rounds = rates.length;
        double[] ratios = new double[rounds];
        double[] manyRates = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            ratios[r] = rates[r][many] / rates[r][one];
            manyRates[r] = rates[r][many];
        }
        System.out.printf(Locale.ROOT, "{\"kind\":\"readmany-summary\",\"face\":\"%s\",\"mode\":\"%s\","
                        + "\"rounds\":%d,\"ratio_many_over_one\":%s,\"median_ratio\":%.2f,"
                        + "\"median_many_needles_s\":%.0f}%n", face, mode, rounds,
                Arrays.toString(Arrays.stream(ratios).map(x -> Math.round(x * 100) / 100.0).toArray()),
                median(ratios), median(manyRates));
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** One readMany of every fid, each compared with its plain file: the bench measures right answers only. */
    private static void check(Context context, NeedleClient client, List<String> fids, Path plain) throws Exception {
        List<NeedleResult> results = await(onContext(context, () -> client.readMany(fids)));
        for (NeedleResult r : results) {
            byte[] expected = Files.readAllBytes(plain.resolve(r.fid()));
            if (!Arrays.equals(expected, r.orThrow().body().getBytes())) {
                throw new IllegalStateException("wrong bytes for " + r.fid());
            }
        }
    }

    /** {@code inFlight} calls of {@code perCall} fids each, re-issued as they complete, for {@code seconds}. */
    private static final class Loop {
        private final List<String> fids;
        private final long deadline;
        private final int inFlight;
        private final int perCall;
        private final boolean lend;
        private final NeedleClient client;
        private final Promise<Long> done = Promise.promise();
        private long needles;
        private int next;
        private int running;

        Loop(List<String> fids, double seconds, int inFlight, int perCall, boolean lend, NeedleClient client) {
            this.fids = fids;
            this.deadline = System.nanoTime() + (long) (seconds * 1e9);
            this.inFlight = inFlight;
            this.perCall = perCall;
            this.lend = lend;
            this.client = client;
        }

        Future<Long> start() {
            for (int i = 0; i < inFlight; i++) {
                issue();
            }
            return done.future();
        }

        private void issue() {
            running++;
            Supplier<Future<Integer>> call;
            if (perCall == 1) {
                String fid = fids.get(next++ % fids.size());
                call = () -> client.read(fid).map(n -> 1);
            } else {
                List<String> some = new ArrayList<>(perCall);
                for (int i = 0; i < perCall; i++) {
                    some.add(fids.get(next++ % fids.size()));
                }
                call = lend ? () -> client.readMany(some, NeedleResult::orThrow)
                        : () -> client.readMany(some).map(results -> {
                            results.forEach(NeedleResult::orThrow);
                            return results.size();
                        });
            }
            call.get().onComplete(ar -> {
                running--;
                if (ar.failed()) {
                    done.tryFail(ar.cause());
                    return;
                }
                needles += ar.result();
                if (System.nanoTime() < deadline) {
                    issue();
                } else if (running == 0) {
                    done.tryComplete(needles);
                }
            });
        }
    }

    /** A verticle whose event-loop context the calls are made from, as an application's verticle would. */
    private static final class ContextVerticle extends VerticleBase {
        Context context() {
            return context;
        }
    }
}
