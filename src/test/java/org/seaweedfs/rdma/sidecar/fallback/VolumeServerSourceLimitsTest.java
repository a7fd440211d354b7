package org.seaweedfs.rdma.sidecar.fallback;

import org.seaweedfs.rdma.sidecar.ReadFailure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.volume.FileId;

/**
 * The HTTP fallback never buffers more than sidecar.maxNeedleBytes: a stand-in volume server that announces or
 * streams too much, or answers 413, gives TOO_LARGE (413, not retriable) and no other replica is tried. The master
 * client bounds a lookup answer the same way.
 */
@ExtendWith(VertxExtension.class)
class VolumeServerSourceLimitsTest {

    private static final int LIMIT = 4096;
    private HttpServer server;
    private VolumeServerSource source;

    @BeforeEach
    void start(Vertx vertx) throws Exception {
        server = vertx.createHttpServer().requestHandler(request -> {
            HttpServerResponse response = request.response().putHeader("ETag", "\"00000000\"");
            switch (request.path()) {
                case "/1,0100000001" -> endless(vertx, response.putHeader("Content-Length", Long.toString(1L << 40)));
                case "/1,0200000001" -> endless(vertx, response.setChunked(true));
                case "/1,0300000001" -> response.setStatusCode(413).end();
                case "/dir/lookup" -> {
                    response.setChunked(true).write("{\"locations\":[\"");
                    endless(vertx, response);
                }
                default -> response.setStatusCode(404).end();
            }
        }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
        source = new VolumeServerSource(VolumeServerSource.newClient(vertx, 4), null, LIMIT, Duration.ofSeconds(30));
    }

    /** Streams 16 KiB chunks until the client goes away (an endless body: a hang or an unbounded buffer if read). */
    private static void endless(Vertx vertx, HttpServerResponse response) {
        Buffer chunk = Buffer.buffer(new byte[16 << 10]);
        vertx.setPeriodic(1, id -> {
            if (response.closed() || response.ended()) {
                vertx.cancelTimer(id);
            } else if (!response.writeQueueFull()) {
                response.write(chunk);
            }
        });
    }

    @AfterEach
    void stop() throws Exception {
        server.close().await(10, TimeUnit.SECONDS);
    }

    @Test
    void bodiesAboveTheLimitFailTooLarge() {
        for (String fid : new String[] {"1,0100000001", "1,0200000001", "1,0300000001"}) {
            ReadFailure f = assertThrows(ReadFailure.class, () -> source.read(FileId.parse(fid),
                    "127.0.0.1:" + server.actualPort()).await(20, TimeUnit.SECONDS), fid);
            assertEquals(ReadFailure.Kind.TOO_LARGE, f.kind(), fid + ": " + f.getMessage());
            assertEquals(413, f.code());
            assertFalse(f.retriable());
            assertTrue(f.getMessage().contains("sidecar.maxNeedleBytes"), f.getMessage());
        }
    }

    @Test
    void anEndlessMasterAnswerIsCutOff(Vertx vertx) {
        MasterClient master = new MasterClient(vertx, WebClient.create(vertx),
                new org.seaweedfs.rdma.config.HostPort("127.0.0.1", server.actualPort()), Duration.ofMinutes(1),
                        Duration.ofSeconds(30));
        ReadFailure f = assertThrows(ReadFailure.class, () -> master.lookup(7).await(20, TimeUnit.SECONDS));
        assertEquals(ReadFailure.Kind.UNAVAILABLE, f.kind());
        assertTrue(f.getMessage().contains("more than " + MasterClient.MAX_ANSWER_BYTES + " bytes"), f.getMessage());
    }
}
