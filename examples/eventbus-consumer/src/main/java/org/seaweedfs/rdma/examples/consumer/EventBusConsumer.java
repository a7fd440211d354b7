package org.seaweedfs.rdma.examples.consumer;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.DeliveryOptions;
import java.io.PrintStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.seaweedfs.rdma.client.Needle;
import org.seaweedfs.rdma.client.NeedleClient;
import org.seaweedfs.rdma.client.NeedleException;
import org.seaweedfs.rdma.cluster.ClusteredVertx;
import org.seaweedfs.rdma.config.ClusterConfig;
import org.seaweedfs.rdma.config.HostPort;

/**
 * A Vert.x application that joins a sidecar's cluster and reads needles over the event bus:
 * <pre>
 *   java -jar target/eventbus-consumer.jar --members HOST:PORT[,..] [--host ADDR] [--port N] [--timeout-ms N] FID...
 * </pre>
 * prints one line per fid, {@code FID SHA256 LENGTH SOURCE} (the sha256 in hex of the body received), and exits 1
 * if any read failed (each failure is reported on stderr), 2 on a usage error.
 */
public final class EventBusConsumer {

    private static final String USAGE = "usage: eventbus-consumer --members HOST:PORT[,..] [--host ADDR] [--port N] "
            + "[--timeout-ms N] FID...";

    private EventBusConsumer() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        List<HostPort> members = new ArrayList<>();
        String host = "127.0.0.1";
        int port = 0;
        long timeoutMs = 10_000;
        List<String> fids = new ArrayList<>();
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--members" -> {
                        for (String m : value(args, ++i).split(",")) {
                            members.add(HostPort.parse(m.strip()));
                        }
                    }
                    case "--host" -> host = value(args, ++i);
                    case "--port" -> port = Integer.parseInt(value(args, ++i));
                    case "--timeout-ms" -> timeoutMs = Long.parseLong(value(args, ++i));
                    case "--help", "-h" -> {
                        out.println(USAGE);
                        return 0;
                    }
                    default -> fids.add(args[i]);
                }
            }
        } catch (IllegalArgumentException e) {
            err.println("eventbus-consumer: " + e.getMessage() + "\n" + USAGE);
            return 2;
        }
        if (members.isEmpty() || fids.isEmpty() || timeoutMs <= 0) {
            err.println(USAGE);
            return 2;
        }
        Vertx vertx = ClusteredVertx.create(new ClusterConfig(true, host, port, members), new VertxOptions(), null)
                .await();
        try {
            NeedleClient client = NeedleClient.overEventBus(vertx, new DeliveryOptions().setSendTimeout(timeoutMs));
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            int failed = 0;
            for (String fid : fids) {
                try {
                    Needle needle = read(vertx, client, fid, deadline);
                    out.println(fid + " " + sha256(needle) + " " + needle.body().length() + " " + needle.source());
                } catch (NeedleException e) {
                    failed++;
                    err.println(fid + ": failed (" + e.code() + " " + e.kind() + "): " + e.getMessage());
                }
            }
            out.flush();
            return failed == 0 ? 0 : 1;
        } finally {
            vertx.close().await();
        }
    }

    /** Reads one needle; until {@code deadline}, waits for a sidecar to appear on the bus (UNAVAILABLE). */
    private static Needle read(Vertx vertx, NeedleClient client, String fid, long deadline) {
        while (true) {
            try {
                return client.read(fid).await();
            } catch (NeedleException e) {
                if (e.kind() != NeedleException.Kind.UNAVAILABLE || System.nanoTime() > deadline) {
                    throw e;
                }
                vertx.timer(100).await();
            }
        }
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(args[i - 1] + " needs a value");
        }
        return args[i];
    }

    private static String sha256(Needle needle) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(needle.body().getBytes()));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no SHA-256 in this JVM", e);
        }
    }
}
