package org.seaweedfs.rdma.ucx;

import static org.seaweedfs.rdma.bench.BenchSupport.await;
import static org.seaweedfs.rdma.bench.BenchSupport.onContext;
import static org.seaweedfs.rdma.bench.BenchSupport.pct;
import static org.seaweedfs.rdma.bench.BenchSupport.pctsJson;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.seaweedfs.rdma.polling.PollingPolicy;

/**
 * The Java side of {@code bench/ucp_get_bench.c} (bench/run.sh, hook_java_get), not a test: the same gets through
 * the project's get path ({@link UcxChannel#get}, completed on the caller's event loop) between two
 * {@link UcxWorkerVerticle}s, each in its own Vert.x instance, each worker progressed by its own owner thread.
 * Gets are issued on an event loop of the client's Vert.x, so they run on that loop's UCX lane (its own worker) unless
 * lanes are off ({@code --lanes false}: every get through the client's owner thread).
 * The "agent" side owns a region of {@code --mem file} (a file mapped read-only and registered, as the agent does
 * with a volume) or {@code --mem ucx} (UCX-allocated); the client reads it into a registered direct buffer.
 * Per size: one get checked byte for byte, warm-up, one-outstanding latency (call to completion on the caller's
 * context), then pipelined bandwidth with {@code --window} gets in flight. Prints one JSON line per size.
 * <pre>
 *   java -cp "$(source bench/lib/mains.sh; build_mains target/seaweedfs-rdma-sidecar.jar bench/out/mains)"
 * org.seaweedfs.rdma.ucx.UcxGetBenchMain \
 *       --tls shm,tcp --mem file --sizes 4K,64K,1M [--dir /tmp] [--region 64M] [--iters 20000] [--lat-seconds 2]
 *       [--warmup 20000] [--bw-seconds 1] [--window 16] [--idle-poll MICROS] [--lanes false]
 * </pre>
 * UCX_ERROR_SIGNALS= (bench/run.sh) is expected; transport settings are on each context (UcxSettings).
 */
public final class UcxGetBenchMain {

    private final Map<String, String> opts;
    private final int region;
    private final int window;

    private UcxGetBenchMain(Map<String, String> opts) {
        this.opts = opts;
        this.region = (int) size(opts.getOrDefault("region", "64M"));
        this.window = Integer.parseInt(opts.getOrDefault("window", "16"));
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --option value, got " + args[i]);
            }
            opts.put(args[i].substring(2), args[i + 1]);
        }
        new UcxGetBenchMain(opts).run();
        System.exit(0);
    }

    private void run() throws Exception {
        String tls = opts.getOrDefault("tls", UcxSettings.DEFAULT_TLS);
        String mem = opts.getOrDefault("mem", "file");
        UcxSettings settings = new UcxSettings(tls, "all", true, UcxSettings.mayUseRdma(tls),
                opts.containsKey("idle-poll") ? Integer.parseInt(opts.get("idle-poll")) : PollingPolicy.DEFAULT_MICROS);
        // --lanes false: gets issued on a worker context, which no event-loop lane serves (the owner path)
        boolean lanes = Boolean.parseBoolean(opts.getOrDefault("lanes", "true"));
        int[] sizes =
                Arrays.stream(opts.getOrDefault("sizes", "4K,64K,1M").split(",")).mapToInt(s ->
                (int) size(s)).toArray();
        int maxSize = Arrays.stream(sizes).max().orElseThrow();
        Vertx agentVertx = Vertx.vertx();
        Vertx clientVertx = Vertx.vertx();
        Path file = null;
        try {
            UcxWorkerVerticle agent = new UcxWorkerVerticle(settings);
            UcxWorkerVerticle client = new UcxWorkerVerticle(settings);
            await(agentVertx.deployVerticle(agent));
            await(clientVertx.deployVerticle(client));
            UcxListener listener = await(agent.listen("127.0.0.1", 0, ch -> { }));
            UcxMemoryRegion remote;
            if (mem.equals("file")) {
                file =
                        Path.of(opts.getOrDefault("dir", "/tmp")).resolve("java-get-bench-"
                        + ProcessHandle.current().pid() + ".region");
                remote = await(agent.register(mapPattern(file, region)));
            } else if (mem.equals("ucx")) {
                remote = await(agent.allocate(region));
                fill(remote.buffer());
            } else {
                throw new IllegalArgumentException("--mem must be file or ucx, got " + mem);
            }
            UcxMemoryRegion local = await(client.register(ByteBuffer.allocateDirect(window * maxSize)));
            Context context = lanes ? clientVertx.getOrCreateContext()
                    : ((io.vertx.core.internal.VertxInternal) clientVertx).createWorkerContext();
            UcxChannel channel = await(client.connect("127.0.0.1", listener.port()));
            UcxRemoteKey key = await(channel.unpackRemoteKey(remote.packedRemoteKey()));
            for (int size : sizes) {
                Probe probe = new Probe(context, channel, key, remote, local, size);
                probe.verifyOnce();
                String line = probe.measure(
                        Integer.parseInt(opts.getOrDefault("warmup", "20000")),
                        Integer.parseInt(opts.getOrDefault("iters", "20000")),
                        Double.parseDouble(opts.getOrDefault("lat-seconds", "2")),
                        Double.parseDouble(opts.getOrDefault("bw-seconds", "1")));
                System.out.println("{\"impl\":\"java-ucp\",\"kind\":\"get\",\"tls\":\"" + tls + "\",\"mem\":\"" + mem
                        + "\",\"procs\":1,\"idle_poll_us\":" + settings.idlePollMicros() + ",\"lanes\":" + lanes
                        + ",\"lane_gets\":" + client.metrics().laneGets().sum() + "," + line + "}");
                System.out.flush();
            }
        } finally {
            await(clientVertx.close());
            await(agentVertx.close());
            if (file != null) {
                Files.deleteIfExists(file);
            }
        }
    }

    /** One size: the gets of the latency and bandwidth phases, walking the remote region. */
    private final class Probe {
        final Context context;
        final UcxChannel channel;
        final UcxRemoteKey key;
        final UcxMemoryRegion remote;
        final UcxMemoryRegion local;
        final int size;
        final int slots;
        long next;

        Probe(Context context, UcxChannel channel, UcxRemoteKey key, UcxMemoryRegion remote, UcxMemoryRegion local,
                int size) {
            this.context = context;
            this.channel = channel;
            this.key = key;
            this.remote = remote;
            this.local = local;
            this.size = size;
            this.slots = region / size;
        }

        long nextOffset() {
            long offset = (next++ % slots) * size;
            return offset;
        }

        Future<Void> get(long remoteOffset, int slot) {
            return channel.get(remote.address() + remoteOffset, key, local.address() + (long) slot * size, size);
        }

        void verifyOnce() throws Exception {
            long offset = (long) (slots / 2) * size;
            await(onContext(context, () -> get(offset, 0)));
            ByteBuffer got = local.buffer().duplicate().position(0).limit(size).slice();
            ByteBuffer want = remote.buffer().duplicate().position((int) offset).limit((int) offset + size).slice();
            if (!got.equals(want)) {
                throw new IllegalStateException("the get of " + size + " bytes at " + offset + " returned wrong bytes");
            }
        }

        String measure(int warmup, int iters, double latSeconds, double bwSeconds) throws Exception {
            await(onContext(context, () -> sequential(warmup, null, Long.MAX_VALUE)));
            long[] samples = new long[iters];
            long deadline = System.nanoTime() + (long) (latSeconds * 1e9);
            int n = await(onContext(context, () -> sequential(iters, samples, deadline)));
            long[] lat = Arrays.copyOf(samples, n);
            Arrays.sort(lat);
            long t0 = System.nanoTime();
            long ops = await(onContext(context, () -> pipelined(System.nanoTime() + (long) (bwSeconds * 1e9))));
            double seconds = (System.nanoTime() - t0) / 1e9;
            double mean = Arrays.stream(lat).average().orElse(0) / 1e3;
            return String.format(Locale.ROOT,
                    "\"size\":%d,\"p50_us\":%s,\"p99_us\":%s,\"mean_us\":%s,\"lat_samples\":%d,"
                            + "\"gbps\":%s,\"ops_s\":%s,\"window\":%d,\"verified\":true,\"pcts_us\":{%s}",
                    size, fmt(pct(lat, 50)), fmt(pct(lat, 99)), fmt(mean), n,
                    fmt3(ops * (double) size / seconds / 1e9), fmt(ops / seconds), window, pctsJson(lat));
        }

        /** One get at a time; samples (microsecond-precise nanos) when given; completes with the count done. */
        Future<Integer> sequential(int count, long[] samples, long deadline) {
            Promise<Integer> done = Promise.promise();
            int[] i = {0};
            Runnable[] step = new Runnable[1];
            step[0] = () -> {
                long start = System.nanoTime();
                get(nextOffset(), 0).onComplete(ar -> {
                    if (ar.failed()) {
                        done.fail(ar.cause());
                        return;
                    }
                    long end = System.nanoTime();
                    if (samples != null) {
                        samples[i[0]] = end - start;
                    }
                    if (++i[0] == count || end > deadline) {
                        done.complete(i[0]);
                    } else {
                        step[0].run();
                    }
                });
            };
            step[0].run();
            return done.future();
        }

        /** {@code window} gets in flight until the deadline; completes with the number of gets done. */
        Future<Long> pipelined(long deadline) {
            Promise<Long> done = Promise.promise();
            long[] completed = {0};
            int[] live = {window};
            for (int slot = 0; slot < window; slot++) {
                issue(slot, deadline, completed, live, done);
            }
            return done.future();
        }

        private void issue(int slot, long deadline, long[] completed, int[] live, Promise<Long> done) {
            get(nextOffset(), slot).onComplete(ar -> {
                if (ar.failed()) {
                    done.tryFail(ar.cause());
                    return;
                }
                completed[0]++;
                if (System.nanoTime() < deadline) {
                    issue(slot, deadline, completed, live, done);
                } else if (--live[0] == 0) {
                    done.tryComplete(completed[0]);
                }
            });
        }

    }


    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    private static String fmt3(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    /** A file of {@code length} pattern bytes, mapped read-only (what the agent registers for a volume). */
    private static MappedByteBuffer mapPattern(Path file, int length) throws IOException {
        ByteBuffer pattern = ByteBuffer.allocate(1 << 20);
        fill(pattern);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            for (long at = 0; at < length; at += pattern.capacity()) {
                ch.write(pattern.clear().limit((int) Math.min(pattern.capacity(), length - at)));
            }
            ch.force(false);
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_ONLY, 0, length);
            map.load();
            return map;
        }
    }

    private static void fill(ByteBuffer buffer) {
        long x = 0x9E3779B97F4A7C15L;
        for (int i = 0; i + 8 <= buffer.capacity(); i += 8) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            buffer.putLong(i, x);
        }
    }

    private static long size(String s) {
        s = s.strip().toUpperCase(Locale.ROOT);
        long unit = s.endsWith("K") ? 1 << 10 : s.endsWith("M") ? 1 << 20 : s.endsWith("G") ? 1 << 30 : 1;
        return Long.parseLong(unit == 1 ? s : s.substring(0, s.length() - 1)) * unit;
    }

}
