import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The framework's ceiling, a peer for bench/run.sh: a bare Vert.x HTTP/1.1 server on the sidecar's Vert.x (same jar,
 * same server options, same number of verticle instances, Netty's epoll transport as {@code serve} prefers)
 * answering GET /<name> with the bytes of the plain file of that name, held in memory, and a fixed ETag. No volume,
 * no UCX, no metrics, no CRC: whatever the sidecar spends beyond this per request is the read path's; whatever this
 * spends beyond nginx is Vert.x's and the JVM's.
 *
 *   java -cp target/seaweedfs-rdma-sidecar.jar bench/peers/VertxStaticHttp.java PLAIN_DIR PORT INSTANCES
 *
 * Prints "ready: <port>" once listening.
 */
public class VertxStaticHttp {

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int port = Integer.parseInt(args[1]);
        int instances = Integer.parseInt(args[2]);
        Map<String, Buffer> files = new HashMap<>();
        try (Stream<Path> list = Files.list(dir)) {
            for (Path p : (Iterable<Path>) list::iterator) {
                files.put("/" + p.getFileName(), Buffer.buffer(Files.readAllBytes(p)));
            }
        }
        Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true)); // as serve runs
        vertx.deployVerticle(() -> new VerticleBase() {
            @Override
            public Future<?> start() {
                return vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(port)
                                .setPerMessageWebSocketCompressionSupported(false)
                                .setPerFrameWebSocketCompressionSupported(false).setHttp2ClearTextEnabled(false))
                        .requestHandler(request -> {
                            Buffer body = files.get(request.path());
                            if (body == null) {
                                request.response().setStatusCode(404).end();
                            } else {
                                request.response().putHeader("ETag", "\"00000000\"")
                                        .putHeader("Content-Type", "application/octet-stream").end(body);
                            }
                        }).listen();
            }
        }, new DeploymentOptions().setInstances(instances)).await();
        System.out.println("ready: " + port + " (" + files.size() + " files, " + instances + " instances, network transport "
                + (vertx.isNativeTransportEnabled() ? "epoll" : "nio") + ")");
    }
}
