package org.seaweedfs.rdma.e2e;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.seaweedfs.rdma.SeaweedRdma;
import org.seaweedfs.rdma.client.Needle;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.config.RdmaConfig;
import org.seaweedfs.rdma.sidecar.connection.AgentPeer;
import org.seaweedfs.rdma.testing.Await;

/**
 * An application that embeds the library in a JVM of its own, as PeerSettingsEndToEndTest starts it (no UCX_*
 * variable unless the test gives some): deploys the sidecar role against one agent over UCX's TCP transport, waits
 * until the agent is connected or refused, then reads every fid listed in a file. Prints one line per fid,
 * {@code FID SHA256 LENGTH SOURCE} or {@code FID FAILED message}, after a first line {@code UP} or
 * {@code DOWN reason}; exits 0 when every read succeeded, 1 otherwise.
 *
 * <p>Arguments: {@code host:port fids-file}.
 */
public final class EmbeddedReaderMain {

    private EmbeddedReaderMain() {
    }

    public static void main(String[] args) throws Exception {
        List<String> fids = Files.readAllLines(Path.of(args[1])).stream().filter(l -> !l.isBlank()).toList();
        Vertx vertx = Vertx.vertx();
        RdmaConfig config = ConfigLoader.parse("""
                roles: [sidecar]
                http: {host: 127.0.0.1, port: 0}
                sidecar: {agents: ['%s']}
                ucx: {tls: [tcp]}
                """.formatted(args[0]), "embedded application", Map.of());
        SeaweedRdma rdma = Await.await(SeaweedRdma.deploy(vertx, config, null));
        AgentPeer peer = rdma.connections().peers().get(0);
        Await.until("the agent connected or refused", () -> peer.isUp() || peer.lastError() != null,
                Duration.ofSeconds(60));
        System.out.println(peer.isUp() ? "UP" : "DOWN " + peer.lastError());
        boolean allRead = true;
        for (String fid : fids) {
            try {
                Needle needle = onContext(vertx, () -> rdma.client().read(fid));
                byte[] body = needle.body().getBytes();
                System.out.println(fid + " "
                        + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body))
                        + " " + body.length + " " + needle.source());
            } catch (RuntimeException e) {
                allRead = false;
                System.out.println(fid + " FAILED " + e.getMessage());
            }
        }
        System.out.flush();
        Await.await(rdma.close().compose(v -> vertx.close()));
        System.exit(allRead ? 0 : 1);
    }

    private static <T> T onContext(Vertx vertx, Supplier<Future<T>> call) {
        Promise<T> result = Promise.promise();
        vertx.getOrCreateContext().runOnContext(v -> call.get().onComplete(result));
        return Await.await(result.future());
    }
}
