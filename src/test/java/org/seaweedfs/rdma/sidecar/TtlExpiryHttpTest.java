package org.seaweedfs.rdma.sidecar;

import org.seaweedfs.rdma.testing.AgentSetup;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.sidecar.read.NeedleReader;
import org.seaweedfs.rdma.sidecar.read.ReadPathOptions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.config.HttpConfig;
import org.seaweedfs.rdma.http.HttpApiContext;
import org.seaweedfs.rdma.http.HttpApiVerticle;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.Ttl;
import org.seaweedfs.rdma.volume.VolumeWriter;
import org.seaweedfs.rdma.testing.AgentHarness;

/**
 * A needle whose ttl has passed (appendAtNs + ttl before now) answers the volume server's empty 404 over HTTP,
 * read through the real path: volume files written here, an agent and the sidecar's UCX read path.
 */
class TtlExpiryHttpTest {

    @TempDir
    Path dir;

    @Test
    void anExpiredNeedleIs404AndALiveOneIsServed() throws Exception {
        long now = System.currentTimeMillis();
        long twoMinutesAgoNs = TimeUnit.MILLISECONDS.toNanos(now - 120_000);
        try (VolumeWriter writer = VolumeWriter.create(dir, "", 4, 3, IndexFormat.of(false))) {
            writer.append(NewNeedle.builder(1, 0x11, "expired".getBytes()).ttl(Ttl.of(1, Ttl.MINUTE))
                    .lastModified(now / 1000 - 120).appendAtNs(twoMinutesAgoNs).build());
            writer.append(NewNeedle.builder(2, 0x22, "still fresh".getBytes()).ttl(Ttl.of(1, Ttl.HOUR))
                    .lastModified(now / 1000 - 120).appendAtNs(twoMinutesAgoNs).build());
        }
        try (AgentHarness agent = new AgentHarness(dir, "sm,tcp,self", AgentSetup.DEFAULTS);
             ReadPathHarness.SidecarSide sidecar = new ReadPathHarness.SidecarSide("sm,tcp,self",
                     new RegisteredBufferPool.Settings(64 << 10, 8, 1 << 20, 2))) {
            NeedleReader reader = sidecar.reader(new StaticAgentRouter(sidecar.connect(agent.port(), null)),
                    ReadPathOptions.defaults());
            HttpApiVerticle http = new HttpApiVerticle(new HttpApiContext(reader, new FixedReadPathStatus(),
                    new HttpConfig("127.0.0.1", 0, 1, null), 64 << 20, new Admission(16), ReadMeters.noop(), null));
            await(sidecar.vertx.deployVerticle(http));
            WebClient client = WebClient.create(sidecar.vertx);

            HttpResponse<Buffer> expired = await(client.get(http.actualPort(), "127.0.0.1", "/4,0100000011").send());
            assertEquals(404, expired.statusCode());
            assertEquals(null, expired.body(), "the volume server's empty 404");
            HttpResponse<Buffer> fresh = await(client.get(http.actualPort(), "127.0.0.1", "/4,0200000022").send());
            assertEquals(200, fresh.statusCode());
            assertEquals("still fresh", fresh.bodyAsString());
        }
    }
}
