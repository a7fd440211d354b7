package org.seaweedfs.rdma.eventbus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.client.NeedleClient;
import org.seaweedfs.rdma.client.NeedleException;
import org.seaweedfs.rdma.client.NeedleFrame;
import org.seaweedfs.rdma.client.NeedleResult;
import org.seaweedfs.rdma.config.SidecarConfig;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.InMemoryNeedleSource;
import org.seaweedfs.rdma.volume.FileId;

/**
 * {@code seaweedfs.needle.readMany}'s frame and bounds (the real stack's bytes are checked in BatchEndToEndTest): the
 * reply frame's bound turns needles beyond it into "too large" entries, the frame reaches a local requester without
 * a copy, and a frame of the wrong shape is refused by the client.
 */
@ExtendWith(VertxExtension.class)
class ReadManyEventBusTest {

    private static final FileId SMALL = FileId.parse("3,01637037d6");
    private static final FileId BIG = FileId.parse("3,02637037d6");
    private static final FileId GZIPPED = FileId.parse("3,03637037d6");
    private static final byte[] TEXT = "a needle of the event bus, read with its neighbours".getBytes();

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private Vertx vertx;

    @BeforeEach
    void deploy(Vertx vertx) throws Exception {
        this.vertx = vertx;
        InMemoryNeedleSource source = new InMemoryNeedleSource(vertx);
        source.put(SMALL, TEXT, "a.txt", "text/plain", 1_700_000_000L, Map.of());
        source.put(BIG, new byte[600], "", "", 0, Map.of());
        source.putGzipped(GZIPPED, TEXT, "b.txt", "");
        vertx.deployVerticle(new EventBusApiVerticle(source, 1 << 20, new ReadMeters(registry), 0,
                new SidecarConfig.Batch(3, 1024, 2, 512))).await(10, TimeUnit.SECONDS);
    }

    @Test
    void needlesBeyondTheReplyBoundAre413EntriesAndTheOthersAreRead() throws Exception {
        List<String> fids = List.of(SMALL.toString(), BIG.toString(), GZIPPED.toString());
        List<NeedleResult> results = NeedleClient.overEventBus(vertx).readMany(fids).await(10, TimeUnit.SECONDS);
        assertArrayEquals(TEXT, results.get(0).orThrow().body().getBytes());
        assertEquals("a.txt", results.get(0).needle().name());
        assertEquals(1_700_000_000L, results.get(0).needle().lastModified());
        assertEquals(NeedleException.Kind.BAD_REQUEST, results.get(1).failure().kind(), "as a read too large");
        assertTrue(results.get(1).failure().getMessage().contains("sidecar.batch.maxReplyBytes"));
        assertArrayEquals(TEXT, results.get(2).orThrow().body().getBytes(), "decompressed");
        assertEquals(1, registry.get("seaweedfs.rdma.read.batch").tag("face", "eventbus").timer().count());
        assertEquals(2, registry.get("seaweedfs.rdma.read.batch.needles").tag("result", "ok").counter().count(), 0.5);
        assertEquals(1, registry.get("seaweedfs.rdma.read.batch.needles").tag("result", "too_large").counter().count(),
                0.5);
    }

    @Test
    void moreFidsThanTheBoundFailTheCall() {
        NeedleException e = assertThrows(NeedleException.class, () -> NeedleClient.overEventBus(vertx)
                .readMany(List.of("1,01", "1,02", "1,03", "1,04")).await(10, TimeUnit.SECONDS));
        assertEquals(400, e.code());
        assertTrue(e.getMessage().contains("sidecar.batch.maxFids"), e.getMessage());
    }

    @Test
    void theFrameReachesALocalRequesterAsTheBufferSent() throws Exception {
        Buffer[] sent = new Buffer[1];
        vertx.eventBus().addOutboundInterceptor(dc -> {
            if (dc.message().body() instanceof Buffer b) {
                sent[0] = b;
            }
            dc.next();
        });
        Object got = vertx.eventBus().request(EventBusApiVerticle.READ_MANY_ADDRESS,
                new JsonObject().put("fids", new JsonArray().add(SMALL.toString()))).await(10, TimeUnit.SECONDS)
                .body();
        assertSame(sent[0], got, "no copy on local delivery");
    }

    @Test
    void aFrameOfTheWrongShapeIsRefused() {
        Buffer frame = new NeedleFrame.Writer(1, 1 << 20).failure(404, "gone").finish();
        assertEquals(NeedleException.Kind.NOT_FOUND,
                NeedleFrame.read(frame, List.of("1,01")).get(0).failure().kind());
        for (Buffer bad : List.of(frame.slice(0, frame.length() - 1), Buffer.buffer("SWNX").appendBuffer(frame),
                frame.copy().appendByte((byte) 0))) {
            NeedleException e = assertThrows(NeedleException.class, () -> NeedleFrame.read(bad, List.of("1,01")));
            assertEquals(NeedleException.Kind.INTERNAL, e.kind());
        }
        assertThrows(NeedleException.class, () -> NeedleFrame.read(frame, List.of("1,01", "1,02")), "count");
    }
}
