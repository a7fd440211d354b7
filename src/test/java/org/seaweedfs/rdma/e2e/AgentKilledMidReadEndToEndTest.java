package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;
import static org.seaweedfs.rdma.testing.Await.until;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.junit5.VertxExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.testing.PrometheusText;
import org.seaweedfs.rdma.volume.Fixtures;

/**
 * An agent process that dies with one-sided gets of its exposed index in flight (frozen first, so that none of them
 * can be answered, then killed), over UCX's TCP transport: each failed get falls back to a lookup, counted by its
 * cause ({@code get}), and the reads fail as unavailable, never with bytes.
 */
@ExtendWith(VertxExtension.class)
class AgentKilledMidReadEndToEndTest {

    private static final long CHILD_SECONDS = 120;
    private static final String ONE_SIDED = "seaweedfs_rdma_location_cache_lookups_onesided_total";
    private static final String FALLBACK = "seaweedfs_rdma_location_cache_lookups_fallback_total";

    @TempDir
    Path work;

    @Test
    void indexGetsCutByTheAgentsDeathFallBackToALookupAndServeNothing(Vertx vertx) throws Exception {
        Path volumes = Files.createDirectories(work.resolve("volumes"));
        Fixtures.copyDir("volumes", volumes);
        List<FixtureNeedles.Expected> needles = FixtureNeedles.live(volumes, 1);
        try (ChildJvm agent = ChildJvm.servedAgent(work, volumes, CHILD_SECONDS);
             Stack sidecar = Stack.sidecar(agent.agentPort(), "  fallback: []\n  readTimeout: 60s\n")) {
            WebClient client = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1")
                    .setDefaultPort(sidecar.httpPort()));
            int next = 0;
            while (metrics(sidecar).sum(ONE_SIDED) == 0) { // the first miss loads the index: read until it is used
                assertTrue(next < needles.size() - 16, "no needle was found in the exposed index");
                FixtureNeedles.Expected e = needles.get(next++);
                HttpResponse<Buffer> r = await(client.get("/" + e.fid()).send());
                assertEquals(200, r.statusCode(), e.fid().toString());
                assertArrayEquals(e.plain(), r.body().getBytes(), e.fid().toString());
            }
            long before = metrics(sidecar).sum(FALLBACK, "cause=get");
            signal(agent, "STOP");
            List<Future<HttpResponse<Buffer>>> reads = needles.subList(next, next + 16).stream()
                    .map(e -> client.get("/" + e.fid()).send()).toList();
            // Never read before: each is a miss whose bucket get waits for the frozen agent.
            until("the reads in flight", () -> metrics(sidecar).sum("seaweedfs_rdma_reads_in_flight") == 16);
            signal(agent, "KILL");
            for (Future<HttpResponse<Buffer>> read : reads) {
                HttpResponse<Buffer> r = await(read);
                assertEquals(503, r.statusCode(), r.bodyAsString());
            }
            assertTrue(metrics(sidecar).sum(FALLBACK, "cause=get") > before, "no failed get fell back to a lookup");
        }
    }

    private static void signal(ChildJvm process, String signal) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-" + signal, String.valueOf(process.process.pid())).start()
                .waitFor(), "kill -" + signal);
    }

    private static PrometheusText metrics(Stack role) {
        return PrometheusText.parse(role.metrics.scrape());
    }
}
