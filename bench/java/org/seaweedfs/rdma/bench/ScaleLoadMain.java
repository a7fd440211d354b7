package org.seaweedfs.rdma.bench;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.seaweedfs.rdma.cli.SampleVolumes;
import org.seaweedfs.rdma.volume.FileId;

/**
 * The scale benchmark's load (bench/scale.sh): GETs of random needles of the volumes {@code gen-volume --derived}
 * wrote, every answer checked byte for byte against the needle's derived bytes, {@code --conns} requests in
 * flight, for {@code --seconds} after a warm-up. {@code --hot N} draws from the first N keys of each volume (a hot
 * set), 0 from all of them (uniform); a hot set is first read once through, key by key (checked, not measured), so
 * the measured window sees it cached however short the warm-up. Prints one JSON line: reads/s, p50/p99, errors
 * and mismatches, and with {@code --cpu-pids p1,p2} the CPU those processes (the agents) spent per read in the
 * measured window, from {@code /proc/<pid>/stat}, less what they spend idle (measured for 2 s before the load).
 * <pre>
 *   java -cp "$(source bench/lib/mains.sh; build_mains target/seaweedfs-rdma-sidecar.jar bench/out/mains)"
 * org.seaweedfs.rdma.bench.ScaleLoadMain \
 *       --port 8081 --volumes 40 --count 500000 --size 100 --hot 2500 --conns 64 --seconds 20 --warmup 5
 * </pre>
 */
public final class ScaleLoadMain {

    /** What one answer was: its needle, how long it took (ns), its body (null when it failed or was not 200). */
    private interface Answer {
        void seen(long vid, long key, long tookNanos, byte[] body);
    }

    /** {@code conns} request loops until {@code next} gives null: each picks (vid, key), GETs it, reports it. */
    private static void run(Vertx vertx, int conns, java.util.function.Function<SplittableRandom, long[]> next,
                            Answer answer, HttpClient client) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(conns);
        for (int c = 0; c < conns; c++) {
            SplittableRandom random = new SplittableRandom(c * 7919L + System.nanoTime());
            vertx.runOnContext(v -> new Object() {
                void loop() {
                    long[] pick = next.apply(random);
                    if (pick == null) {
                        done.countDown();
                        return;
                    }
                    long vid = pick[0];
                    long key = pick[1];
                    FileId fid = new FileId(vid, key, SampleVolumes.derivedCookie(vid, key));
                    long start = System.nanoTime();
                    client.request(HttpMethod.GET, "/" + fid)
                            .compose(req -> req.send().compose(resp -> resp.body().map(body -> {
                                if (resp.statusCode() != 200) {
                                    throw new IllegalStateException("HTTP " + resp.statusCode() + " for " + fid);
                                }
                                return body.getBytes();
                            })))
                            .onComplete(ar -> {
                                answer.seen(vid, key, System.nanoTime() - start, ar.succeeded() ? ar.result() : null);
                                loop();
                            });
                }
            }.loop());
        }
        done.await();
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new TreeMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        int port = Integer.parseInt(a.getOrDefault("port", "8081"));
        int volumes = Integer.parseInt(a.getOrDefault("volumes", "40"));
        int count = Integer.parseInt(a.getOrDefault("count", "500000"));
        int size = Integer.parseInt(a.getOrDefault("size", "100"));
        int hot = Integer.parseInt(a.getOrDefault("hot", "0"));
        int conns = Integer.parseInt(a.getOrDefault("conns", "64"));
        int seconds = Integer.parseInt(a.getOrDefault("seconds", "20"));
        int warmup = Integer.parseInt(a.getOrDefault("warmup", "5"));
        String label = a.getOrDefault("label", hot > 0 ? "hot" : "uniform");
        int keys = hot > 0 ? Math.min(hot, count) : count;
        long[] cpuPids = a.containsKey("cpu-pids") ? Arrays.stream(a.get("cpu-pids").split(","))
                .filter(x -> !x.isBlank()).mapToLong(Long::parseLong).toArray() : new long[0];
        double idleCpuNanosPerSecond = 0;
        if (cpuPids.length > 0) {
            long before = cpuNanos(cpuPids);
            Thread.sleep(2_000);
            idleCpuNanosPerSecond = (cpuNanos(cpuPids) - before) / 2.0;
        }

        Vertx vertx = Vertx.vertx();
        HttpClient client =
                vertx.createHttpClient(new HttpClientOptions().setDefaultPort(port).setDefaultHost("127.0.0.1")
                .setKeepAlive(true), new PoolOptions().setHttp1MaxSize(conns));
        long[] samples = new long[8_000_000];
        AtomicLong recorded = new AtomicLong();
        AtomicLong ok = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicLong mismatches = new AtomicLong();
        if (hot > 0) {
            AtomicLong cursor = new AtomicLong();
            long total = (long) volumes * keys;
            run(vertx, conns, random -> {
                long i = cursor.getAndIncrement();
                return i < total ? new long[] {1 + i % volumes, 1 + i / volumes} : null;
            }, (vid, key, took, body) -> {
                if (body == null) {
                    errors.incrementAndGet();
                } else if (!Arrays.equals(body, SampleVolumes.derivedBytes(vid, key, size))) {
                    mismatches.incrementAndGet();
                }
            }, client);
        }
        long measureFrom = System.nanoTime() + warmup * 1_000_000_000L;
        long end = measureFrom + seconds * 1_000_000_000L;
        java.util.concurrent.atomic.AtomicLongArray cpuWindow = new java.util.concurrent.atomic.AtomicLongArray(2);
        if (cpuPids.length > 0) {
            vertx.setTimer(Math.max(1, warmup * 1000L), t -> cpuWindow.set(0, cpuNanos(cpuPids)));
        }
        run(vertx, conns, random -> System.nanoTime() >= end ? null
                : new long[] {1 + random.nextInt(volumes), 1 + random.nextInt(keys)}, (vid, key, took, body) -> {
                    boolean measured = System.nanoTime() - took >= measureFrom;
                    if (body == null) {
                        if (measured) {
                            errors.incrementAndGet();
                        }
                    } else if (!Arrays.equals(body, SampleVolumes.derivedBytes(vid, key, size))) {
                        mismatches.incrementAndGet(); // counted in the warm-up too: a wrong answer is never fine
                    } else if (measured) {
                        ok.incrementAndGet();
                        long i = recorded.getAndIncrement();
                        if (i < samples.length) {
                            samples[(int) i] = took;
                        }
                    }
                }, client);
        if (cpuPids.length > 0) {
            cpuWindow.set(1, cpuNanos(cpuPids)); // the loops stop at the window's end
        }
        long n = Math.min(recorded.get(), samples.length);
        long[] sorted = Arrays.copyOf(samples, (int) n);
        Arrays.sort(sorted);
        String cpu = "";
        if (cpuPids.length > 0 && cpuWindow.get(0) > 0 && ok.get() > 0) {
            double spent = cpuWindow.get(1) - cpuWindow.get(0);
            cpu = String.format(Locale.ROOT, ",\"agent_cpu_us_per_read\":%.2f,\"agent_cpu_raw_us_per_read\":%.2f,"
                    + "\"agent_idle_cpu_pct\":%.1f", (spent - idleCpuNanosPerSecond * seconds) / ok.get() / 1e3,
                    spent / ok.get() / 1e3, idleCpuNanosPerSecond / 1e7);
        }
        System.out.printf("{\"kind\":\"scale_http\",\"set\":\"%s\",\"hot_keys_per_volume\":%d,\"volumes\":%d,"
                        + "\"needles\":%d,\"size\":%d,\"conns\":%d,\"seconds\":%d,\"reads\":%d,\"reads_s\":%.0f,"
                        + "\"p50_us\":%.1f,\"p99_us\":%.1f,\"errors\":%d,\"mismatches\":%d,\"pcts_us\":{%s}%s}%n",
                label, hot, volumes, (long) volumes * count, size, conns, seconds, ok.get(), ok.get()
                        / (double) seconds,
                BenchSupport.pct(sorted, 50), BenchSupport.pct(sorted, 99), errors.get(), mismatches.get(),
                BenchSupport.pctsJson(sorted), cpu);
        vertx.close().await();
        System.exit(errors.get() == 0 && mismatches.get() == 0 ? 0 : 1);
    }

    /** User + system CPU of the processes (all their threads), from /proc/<pid>/stat, in nanoseconds. */
    private static long cpuNanos(long[] pids) {
        long ticks = 0;
        for (long pid : pids) {
            try {
                String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14, 15)
            } catch (IOException | RuntimeException e) {
                throw new IllegalStateException("cannot read the CPU time of process " + pid + ": " + e, e);
            }
        }
        return ticks * (1_000_000_000L / CLOCK_TICKS_PER_SECOND);
    }

    /** USER_HZ: 100 on Linux for every architecture the project runs on. */
    private static final long CLOCK_TICKS_PER_SECOND = 100;
}
