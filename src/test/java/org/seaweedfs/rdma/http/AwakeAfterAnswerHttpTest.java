package org.seaweedfs.rdma.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.net.NetSocket;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.junit5.VertxExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.config.HttpConfig;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.FixedReadPathStatus;
import org.seaweedfs.rdma.sidecar.InMemoryNeedleSource;
import org.seaweedfs.rdma.testing.Await;
import org.seaweedfs.rdma.volume.FileId;

/** http.awakeMicros: the loop stays awake after a needle answer only while it has few connections. */
@ExtendWith(VertxExtension.class)
class AwakeAfterAnswerHttpTest {

    private static final FileId FID = FileId.parse("3,01637037d6");
    private static final String NEEDLE = "/" + FID;

    private HttpApiVerticle verticle;
    private WebClient client;

    private void deploy(Vertx vertx, int awakeMicros) throws Exception {
        InMemoryNeedleSource source = new InMemoryNeedleSource(vertx);
        source.put(FID, "some bytes".getBytes(), "a.txt", "text/plain", 1_700_000_000L, Map.of());
        HttpConfig http = new HttpConfig("127.0.0.1", 0, 1, 16, null, HttpConfig.DEFAULT_HEADER_TIMEOUT,
                HttpConfig.DEFAULT_IDLE_TIMEOUT, HttpConfig.DEFAULT_MAX_CONNECTIONS,
                HttpConfig.DEFAULT_READ_SLICE_CLIENTS, false, awakeMicros);
        HttpApiContext api = new HttpApiContext(source, new FixedReadPathStatus(), http, 1 << 20, new Admission(16),
                ReadMeters.noop(), null);
        verticle = new HttpApiVerticle(api);
        vertx.deployVerticle(verticle).await(10, TimeUnit.SECONDS);
        client = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1")
                .setDefaultPort(verticle.actualPort()), new PoolOptions().setHttp1MaxSize(1));
    }

    private void readNeedle() throws Exception {
        assertEquals(200, client.get(NEEDLE).send().await(10, TimeUnit.SECONDS).statusCode());
    }

    /** An idle connection that has had one /health round trip, so the verticle has accepted and counted it. */
    private static NetSocket openedConnection(Vertx vertx, int port) throws Exception {
        NetSocket socket = vertx.createNetClient().connect(port, "127.0.0.1").await(10, TimeUnit.SECONDS);
        Buffer received = Buffer.buffer();
        Promise<Void> answered = Promise.promise();
        socket.handler(b -> {
            received.appendBuffer(b);
            String text = received.toString();
            if (text.contains("\r\n\r\n") && text.endsWith("}")) {
                answered.tryComplete();
            }
        });
        socket.write("GET /health HTTP/1.1\r\nHost: t\r\n\r\n");
        answered.future().await(10, TimeUnit.SECONDS);
        assertTrue(received.toString().startsWith("HTTP/1.1 200"), received.toString());
        return socket;
    }

    @Test
    void aLoopWithOneConnectionStaysAwakeAfterEachNeedleAnswer(Vertx vertx) throws Exception {
        deploy(vertx, 50);
        readNeedle();
        readNeedle();
        Await.until("both answers kept the loop awake", () -> verticle.awakeAnswers() == 2);
    }

    @Test
    void aLoopWithManyConnectionsSleepsAtOnce(Vertx vertx) throws Exception {
        deploy(vertx, 50);
        List<NetSocket> others = new ArrayList<>();
        for (int i = 0; i < HttpApiVerticle.AWAKE_MAX_CONNECTIONS; i++) {
            others.add(openedConnection(vertx, verticle.actualPort()));
        }
        readNeedle(); // its connection is one more than the bound
        // A later request on the same loop: once it is answered, the needle answer's end was handled.
        openedConnection(vertx, verticle.actualPort()).close();
        assertEquals(0, verticle.awakeAnswers());
        others.forEach(NetSocket::close);
    }

    @Test
    void zeroMicrosNeverKeepsTheLoopAwake(Vertx vertx) throws Exception {
        deploy(vertx, 0);
        readNeedle();
        openedConnection(vertx, verticle.actualPort()).close();
        assertEquals(0, verticle.awakeAnswers());
    }
}
