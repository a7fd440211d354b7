package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.seaweedfs.rdma.testing.Await.await;
import static org.seaweedfs.rdma.testing.Await.until;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.transport.Transport;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.junit5.VertxExtension;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.testing.RequiredEnvironment;
import org.seaweedfs.rdma.volume.Fixtures;

/**
 * {@code http.transport: io_uring}: a sidecar whose Vert.x runs on Netty's io_uring transport (its HTTP face and the
 * event loops its UCX lanes live on) serves every fixture needle byte for byte, all of them at once, twice. Netty
 * 4.2.12's io_uring closed about half of such concurrent connections (an assertion in its write path, which Maven's
 * {@code -ea} turns on): this is the test that caught it. Skipped where the kernel refuses io_uring (a
 * failure when {@code io_uring} is required: {@link RequiredEnvironment}).
 */
@ExtendWith(VertxExtension.class)
class IoUringEndToEndTest {

    @TempDir
    Path dir;

    @Test
    void everyNeedleIsServedOverAnIoUringSidecarAllAtOnce(Vertx vertx) throws Exception {
        RequiredEnvironment.assume(RequiredEnvironment.IO_URING, Transport.IO_URING.available(),
                () -> "io_uring does not load here: " + Transport.IO_URING.unavailabilityCause());
        Fixtures.copyDir("volumes", dir);
        List<FixtureNeedles.Expected> needles = FixtureNeedles.live(dir, 1);
        assertFalse(needles.isEmpty());
        // Many connections, so that one loop pass schedules writes on several of them.
        WebClient client = WebClient.create(vertx, new WebClientOptions(), new PoolOptions().setHttp1MaxSize(32));
        try (Stack agent = Stack.agent(dir, 0);
             Stack sidecar = Stack.start(Stack.sidecarYaml(agent.agentPort(), "", ", transport: io_uring")
                     .replace("instances: 2", "instances: 1"), Transport.IO_URING)) {
            until("the sidecar connected to its agent", sidecar::agentUp);
            // The second pass reuses the connections and the lanes the first opened.
            for (int pass = 0; pass < 2; pass++) {
                List<Future<HttpResponse<Buffer>>> answers = new ArrayList<>();
                for (FixtureNeedles.Expected n : needles) {
                    answers.add(client.get(sidecar.httpPort(), "127.0.0.1", "/" + n.fid()).send());
                }
                for (int i = 0; i < needles.size(); i++) {
                    FixtureNeedles.Expected n = needles.get(i);
                    HttpResponse<Buffer> r = await(answers.get(i));
                    assertEquals(200, r.statusCode(), n.fid().toString());
                    assertEquals("rdma", r.getHeader("X-Source"), n.fid().toString());
                    assertEquals("\"" + n.etag() + "\"", r.getHeader("ETag"), n.fid().toString());
                    assertArrayEquals(n.plain(), r.body().getBytes(), n.fid().toString()); // no Accept-Encoding: gzip
                }
            }
        } finally {
            client.close();
        }
    }
}
