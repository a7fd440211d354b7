package org.seaweedfs.rdma.ucx;

import static org.seaweedfs.rdma.ucx.UcxTestSupport.await;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.mapReadOnly;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.randomBytes;

import io.vertx.core.Vertx;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.seaweedfs.rdma.testing.ProcessStop;
import org.seaweedfs.rdma.testing.UcxSetup;

/**
 * A UCX peer in a process of its own, which a test can freeze (SIGSTOP) and kill (SIGKILL): the way to lose a peer
 * with gets in flight that it can no longer answer (an undeployed worker in the test's JVM first serves what it was
 * asked). It registers a read-only mapping of {@code size} random bytes (seed {@code seed}), listens on loopback and
 * prints one line, {@code peer port address packedKeyHex}, then runs until killed.
 */
final class UcxPeerProcess implements AutoCloseable {

    final Process process;
    final int port;
    final long address;
    final byte[] packedKey;

    private UcxPeerProcess(Process process, String line) {
        this.process = process;
        String[] parts = line.split(" ");
        this.port = Integer.parseInt(parts[1]);
        this.address = Long.parseLong(parts[2]);
        this.packedKey = HexFormat.of().parseHex(parts[3]);
    }

    /** Starts the peer and waits for its line. */
    static UcxPeerProcess start(Path dir, int size, long seed) throws Exception {
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), UcxPeerProcess.class.getName(), dir.toString(),
                Integer.toString(size), Long.toString(seed))
                .redirectError(dir.resolve("peer.log").toFile()).start();
        BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        do {
            line = out.readLine();
        } while (line != null && !line.startsWith("peer "));
        if (line == null) {
            process.waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("the peer process said nothing: " + Files.readString(dir.resolve("peer.log")));
        }
        return new UcxPeerProcess(process, line);
    }

    /** Freezes the process: it answers nothing, and its sockets stay open (returns once every thread stopped). */
    void freeze() {
        ProcessStop.signal(process.pid(), true);
    }

    /** SIGKILL (a frozen process too), and waits until it is gone. */
    void kill() throws Exception {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("the peer process did not die");
        }
    }

    @Override
    public void close() throws Exception {
        if (process.isAlive()) {
            kill();
        }
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        byte[] content = randomBytes(Integer.parseInt(args[1]), Long.parseLong(args[2]));
        Vertx vertx = Vertx.vertx();
        UcxWorkerVerticle worker = new UcxWorkerVerticle(UcxSetup.defaults());
        await(vertx.deployVerticle(worker));
        UcxMemoryRegion region = await(worker.register(mapReadOnly(dir, "peer.dat", content)));
        UcxListener listener = await(worker.listen("127.0.0.1", 0, channel -> { }));
        System.out.println("peer " + listener.port() + " " + region.address() + " "
                + HexFormat.of().formatHex(region.packedRemoteKey()));
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE); // until killed
    }
}
