package org.seaweedfs.rdma.eventbus;

import static org.seaweedfs.rdma.bench.BenchSupport.pct;
import static org.seaweedfs.rdma.bench.BenchSupport.pctsJson;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.seaweedfs.rdma.eventbus.EventBusBenchMain.Bench;
import org.seaweedfs.rdma.eventbus.EventBusBenchMain.Embedded;

/**
 * The event bus and the typed client measured by turns (bench/turns.sh), not a test: deploys the sidecar of
 * {@code --conf} in this JVM with {@code SeaweedRdma.deploy} (its agent runs as another process) and stays up, so its
 * JIT stays warm between the rounds the script interleaves with the other servers'. Reads the needles of one path
 * list: {@code eventbus} sends {@code seaweedfs.needle.read} requests from an event loop other than the consumer's
 * (what an application's own verticle gets); {@code client} reads with {@code SeaweedRdma.client()} from a verticle's
 * own event loop. Prints {@code {"kind":"ready",...}} once both read the first needle right, then answers each
 * command line of its input with one JSON line:
 * <pre>
 *   check N                         N needles spread over the list, read by both, compared with their plain files
 *   run eventbus|client SECONDS N   N reads in flight for SECONDS: reads/s and the latency of each read
 * </pre>
 * and exits at the end of its input.
 * <pre>
 *   java -cp CLASSPATH org.seaweedfs.rdma.eventbus.EventBusTurnsMain --conf sidecar.yaml --plain DIR PATHS_FILE
 * </pre>
 */
public final class EventBusTurnsMain {

    /** Latency samples kept per run: beyond them a run still counts its reads. */
    private static final int MAX_SAMPLES = 20_000_000;

    /** Reused from run to run: a fresh array of this size before each run would invite a collection into it. */
    private static long[] samples = new long[0];

    private EventBusTurnsMain() {
    }

    public static void main(String[] args) throws Exception {
        Path conf = null;
        Path plain = null;
        Path list = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--conf" -> conf = Path.of(args[++i]);
                case "--plain" -> plain = Path.of(args[++i]);
                default -> list = Path.of(args[i]);
            }
        }
        if (conf == null || plain == null || list == null) {
            throw new IllegalArgumentException("usage: --conf FILE --plain DIR PATHS_FILE");
        }
        Embedded embedded = Embedded.deploy(conf);
        String[] fids = EventBusBenchMain.fids(list);
        Bench eventbus = EventBusBenchMain.bench("eventbus", embedded.vertx(), embedded.server(), fids);
        eventbus.ready(plain, 30_000);
        eventbus = EventBusBenchMain.placed(eventbus, embedded.vertx(), embedded.consumer()[0], false);
        eventbus.ready(plain, 30_000);
        Bench client = EventBusBenchMain.bench("client", embedded.vertx(), embedded.server(), fids);
        client.ready(plain, 30_000);
        Map<String, Bench> benches = Map.of("eventbus", eventbus, "client", client);
        System.out.printf(Locale.ROOT, "{\"kind\":\"ready\",\"size\":%d,\"needles\":%d}%n", eventbus.size, fids.length);
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String[] words = line.strip().split("\\s+");
            String answer;
            try {
                answer = switch (words[0]) {
                    case "check" -> check(benches, plain, Integer.parseInt(words[1]));
                    case "run" -> run(benches.get(words[1]), words[1], Double.parseDouble(words[2]),
                            Integer.parseInt(words[3]));
                    default -> throw new IllegalArgumentException("unknown command: " + line);
                };
            } catch (RuntimeException e) {
                answer = String.format(Locale.ROOT, "{\"kind\":\"error\",\"message\":\"%s\"}",
                        String.valueOf(e).replace("\\", "\\\\").replace("\"", "'"));
            }
            System.out.println(answer);
            System.out.flush();
        }
        embedded.close();
        System.exit(0);
    }

    /** {@code count} needles spread over the list, read by each mode and compared with their plain files. */
    private static String check(Map<String, Bench> benches, Path plain, int count) {
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (Map.Entry<String, Bench> mode : benches.entrySet()) {
            Bench bench = mode.getValue();
            for (int k = 0; k < count; k++) {
                int index = (int) ((long) k * (bench.fids.length - 1) / Math.max(1, count - 1));
                checked++;
                try {
                    if (!bench.matches(plain, index)) {
                        wrong.add("\"" + mode.getKey() + " " + bench.fids[index] + "\"");
                    }
                } catch (java.io.IOException e) {
                    throw new IllegalStateException("the plain file of " + bench.fids[index] + ": " + e, e);
                }
            }
        }
        return String.format(Locale.ROOT, "{\"kind\":\"check\",\"checked\":%d,\"wrong\":[%s]}", checked,
                String.join(",", wrong));
    }

    /** {@code concurrency} reads in flight for {@code seconds}: one JSON line of reads/s and latencies. */
    private static String run(Bench bench, String mode, double seconds, int concurrency) {
        if (bench == null) {
            throw new IllegalArgumentException("run: the mode is eventbus or client");
        }
        int wanted = (int) Math.min(MAX_SAMPLES, Math.max(1, seconds * 2_000_000));
        if (samples.length < wanted) {
            samples = new long[wanted];
        }
        long t0 = System.nanoTime();
        int reads;
        try {
            reads = bench.run(Integer.MAX_VALUE, samples, t0 + (long) (seconds * 1e9), concurrency);
        } catch (Exception e) {
            throw new IllegalStateException("a read failed: " + e, e);
        }
        double elapsed = (System.nanoTime() - t0) / 1e9;
        long[] lat = Arrays.copyOf(samples, Math.min(reads, samples.length));
        Arrays.sort(lat);
        double opsS = reads / elapsed;
        return String.format(Locale.ROOT,
                "{\"impl\":\"java-%s\",\"kind\":\"%s\",\"requester\":\"%s\",\"size\":%d,\"concurrency\":%d,"
                        + "\"seconds\":%.3f,\"reads\":%d,\"ops_s\":%.1f,\"gbps\":%.3f,\"p50_us\":%.2f,\"p99_us\":%.2f,"
                        + "\"mean_us\":%.2f,\"pcts_us\":{%s}}",
                mode, mode, mode.equals("eventbus") ? "other-loop" : "same-loop", bench.size, concurrency, elapsed,
                reads, opsS, opsS * bench.size / 1e9, pct(lat, 50), pct(lat, 99),
                Arrays.stream(lat).average().orElse(0) / 1e3, pctsJson(lat));
    }
}
