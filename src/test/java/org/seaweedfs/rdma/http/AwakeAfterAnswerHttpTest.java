package org.seaweedfs.rdma.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.Vertx;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.junit5.VertxExtension;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.sidecar.Admission;
import org.seaweedfs.rdma.config.HttpConfig;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.FixedReadPathStatus;
import org.seaweedfs.rdma.sidecar.InMemoryNeedleSource;
import org.seaweedfs.rdma.testing.Await;
import org.seaweedfs.rdma.volume.FileId;

/** idlePollMicros: an HTTP loop stays awake after each needle answer; 0 lets it sleep at once. */
@ExtendWith(VertxExtension.class)
class AwakeAfterAnswerHttpTest {

    private static final FileId FID = FileId.parse("3,01637037d6");
    private static final String NEEDLE = "/" + FID;

    private HttpApiVerticle verticle;
    private WebClient client;

    private void deploy(Vertx vertx, int idlePollMicros) throws Exception {
        InMemoryNeedleSource source = new InMemoryNeedleSource(vertx);
        source.put(FID, "some bytes".getBytes(), "a.txt", "text/plain", 1_700_000_000L, Map.of());
        HttpConfig http = new HttpConfig("127.0.0.1", 0, 1, null, HttpConfig.DEFAULT_HEADER_TIMEOUT,
                HttpConfig.DEFAULT_IDLE_TIMEOUT, HttpConfig.DEFAULT_MAX_CONNECTIONS,
                HttpConfig.DEFAULT_READ_SLICE_CLIENTS, false);
        HttpApiContext api = new HttpApiContext(source, new FixedReadPathStatus(), http, 1 << 20, new Admission(16),
                ReadMeters.noop(), null);
        verticle = new HttpApiVerticle(api, idlePollMicros);
        vertx.deployVerticle(verticle).await(10, TimeUnit.SECONDS);
        client = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1")
                .setDefaultPort(verticle.actualPort()), new PoolOptions().setHttp1MaxSize(1));
    }

    private void readNeedle() throws Exception {
        assertEquals(200, client.get(NEEDLE).send().await(10, TimeUnit.SECONDS).statusCode());
    }

    @Test
    void aLoopStaysAwakeAfterEachNeedleAnswer(Vertx vertx) throws Exception {
        deploy(vertx, 50);
        readNeedle();
        readNeedle();
        Await.until("both answers kept the loop awake", () -> Await.await(verticle.awakeAnswers()) == 2);
    }

    @Test
    void zeroMicrosNeverKeepsTheLoopAwake(Vertx vertx) throws Exception {
        deploy(vertx, 0);
        readNeedle();
        readNeedle();
        assertEquals(0, Await.await(verticle.awakeAnswers()));
    }
}
