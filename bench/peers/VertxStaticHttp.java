import io.netty.util.AsciiString;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * The framework's ceilings, peers for bench/run.sh and bench/turns.sh: a bare Vert.x HTTP/1.1 server on the sidecar's
 * Vert.x (same jar, same server options, same number of verticle instances, Netty's epoll transport as {@code serve}
 * prefers) answering GET /<name> with the bytes of the plain file of that name, held in memory. No volume, no UCX, no
 * metrics, no CRC check per answer: whatever the sidecar spends beyond it per request is the read path's; whatever it
 * spends beyond nginx is Vert.x's and the JVM's.
 *
 * With {@code --sidecar-headers} each answer carries the header set the sidecar sends for such a needle (no name,
 * mime or modification time), in its order and spelling: ETag (the CRC-32C, quoted), Accept-Ranges, X-Source: rdma,
 * X-RDMA-Used: true, Content-Length, Content-Type application/octet-stream (what the sidecar's sniffing finds in
 * random bytes), every value computed once at start; bench/turns.sh compares its answers with the sidecar's. What
 * the sidecar spends beyond this server is its read path's alone. Without the flag: a fixed ETag and Content-Type.
 *
 *   java -cp target/seaweedfs-rdma-sidecar.jar bench/peers/VertxStaticHttp.java PLAIN_DIR PORT INSTANCES \
 *       [--sidecar-headers]
 *
 * Prints "ready: <port>" once listening.
 */
public class VertxStaticHttp {

    private static final CharSequence ETAG = HttpHeaders.createOptimized("ETag");
    private static final CharSequence CONTENT_TYPE = HttpHeaders.createOptimized("Content-Type");
    private static final CharSequence ACCEPT_RANGES = HttpHeaders.createOptimized("Accept-Ranges");
    private static final CharSequence X_SOURCE = HttpHeaders.createOptimized("X-Source");
    private static final CharSequence X_RDMA_USED = HttpHeaders.createOptimized("X-RDMA-Used");
    private static final CharSequence CONTENT_LENGTH = HttpHeaders.createOptimized("Content-Length");
    private static final CharSequence BYTES = HttpHeaders.createOptimized("bytes");
    private static final CharSequence RDMA = HttpHeaders.createOptimized("rdma");
    private static final CharSequence TRUE = HttpHeaders.createOptimized("true");
    private static final CharSequence OCTET_STREAM = HttpHeaders.createOptimized("application/octet-stream");
    private static final CharSequence FIXED_ETAG = HttpHeaders.createOptimized("\"00000000\"");

    /** A file's answer: its bytes, its ETag and its length. */
    private record Answer(Buffer body, CharSequence etag, CharSequence length) {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int port = Integer.parseInt(args[1]);
        int instances = Integer.parseInt(args[2]);
        boolean sidecarHeaders = args.length > 3 && args[3].equals("--sidecar-headers");
        if (args.length > 4 || (args.length == 4 && !sidecarHeaders)) {
            throw new IllegalArgumentException("usage: PLAIN_DIR PORT INSTANCES [--sidecar-headers]");
        }
        Map<String, Answer> files = new HashMap<>();
        try (Stream<Path> list = Files.list(dir)) {
            for (Path p : (Iterable<Path>) list::iterator) {
                byte[] bytes = Files.readAllBytes(p);
                files.put("/" + p.getFileName(), new Answer(Buffer.buffer(bytes),
                        sidecarHeaders ? etag(bytes) : FIXED_ETAG, new AsciiString(Integer.toString(bytes.length))));
            }
        }
        Handler<HttpServerRequest> handler = request -> {
            Answer answer = files.get(request.path());
            if (answer == null) {
                request.response().setStatusCode(404).end();
            } else if (sidecarHeaders) {
                request.response().putHeader(ETAG, answer.etag()).putHeader(ACCEPT_RANGES, BYTES)
                        .putHeader(X_SOURCE, RDMA).putHeader(X_RDMA_USED, TRUE)
                        .putHeader(CONTENT_LENGTH, answer.length()).putHeader(CONTENT_TYPE, OCTET_STREAM)
                        .end(answer.body());
            } else {
                request.response().putHeader(ETAG, answer.etag()).putHeader(CONTENT_TYPE, OCTET_STREAM)
                        .end(answer.body());
            }
        };
        Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true)); // as serve runs
        vertx.deployVerticle(() -> new VerticleBase() {
            @Override
            public Future<?> start() {
                return vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(port)
                                .setPerMessageWebSocketCompressionSupported(false)
                                .setPerFrameWebSocketCompressionSupported(false).setHttp2ClearTextEnabled(false))
                        .requestHandler(handler).listen();
            }
        }, new DeploymentOptions().setInstances(instances)).await();
        System.out.println("ready: " + port + " (" + files.size() + " files, " + instances + " instances, network "
                + "transport " + (vertx.isNativeTransportEnabled() ? "epoll" : "nio")
                + (sidecarHeaders ? ", the sidecar's headers" : "") + ")");
    }

    /** The sidecar's ETag: the CRC-32C of the data as 8 lowercase hex digits, quoted. */
    private static CharSequence etag(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        return new AsciiString(String.format(Locale.ROOT, "\"%08x\"", crc.getValue()));
    }
}
