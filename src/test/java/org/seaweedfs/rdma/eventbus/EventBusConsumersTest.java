package org.seaweedfs.rdma.eventbus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.junit5.VertxExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.client.Needle;
import org.seaweedfs.rdma.client.NeedleClient;
import org.seaweedfs.rdma.client.NeedleResult;
import org.seaweedfs.rdma.config.SidecarConfig;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.InMemoryNeedleSource;
import org.seaweedfs.rdma.volume.FileId;

/**
 * How the event-bus consumers are spread: {@code readMany} calls in flight at once are answered from several event
 * loops, single reads from one; each answer is the needle's bytes wherever it was read.
 */
@ExtendWith(VertxExtension.class)
class EventBusConsumersTest {

    private static final FileId FID = FileId.parse("3,01637037d6");
    private static final byte[] TEXT = "read on whichever loop took the call".getBytes();
    private static final int CALLS = 8;

    @Test
    void readManyCallsAreAnsweredOnSeveralLoopsAndSingleReadsOnOne(Vertx vertx) throws Exception {
        InMemoryNeedleSource source = new InMemoryNeedleSource(vertx);
        source.put(FID, TEXT, "a.txt", "text/plain", 0, Map.of());
        List<String> deployments = EventBusApiVerticle.deploy(vertx, 2, singleReads -> new EventBusApiVerticle(
                source, 1 << 20, ReadMeters.noop(), 0, SidecarConfig.Batch.DEFAULT, singleReads))
                .await(10, TimeUnit.SECONDS);
        assertEquals(2, deployments.size(), "every address on one loop, readMany alone on another");

        // A reply leaves from the thread of the consumer that answered: the interceptor sees it there.
        Set<String> manyThreads = ConcurrentHashMap.newKeySet();
        Set<String> singleThreads = ConcurrentHashMap.newKeySet();
        vertx.eventBus().addOutboundInterceptor(dc -> {
            if (dc.message().replyAddress() == null && dc.message().body() instanceof Buffer) {
                (dc.message().headers().contains("etag") ? singleThreads : manyThreads)
                        .add(Thread.currentThread().getName());
            }
            dc.next();
        });
        NeedleClient client = NeedleClient.overEventBus(vertx);
        List<Future<List<NeedleResult>>> many = new ArrayList<>();
        List<Future<Needle>> single = new ArrayList<>();
        for (int i = 0; i < CALLS; i++) {
            many.add(client.readMany(List.of(FID.toString(), FID.toString())));
            single.add(client.read(FID.toString()));
        }
        Future.all(many).await(10, TimeUnit.SECONDS);
        Future.all(single).await(10, TimeUnit.SECONDS);
        for (Future<List<NeedleResult>> call : many) {
            for (NeedleResult r : call.result()) {
                assertArrayEquals(TEXT, r.orThrow().body().getBytes());
            }
        }
        for (Future<Needle> read : single) {
            assertArrayEquals(TEXT, read.result().body().getBytes());
        }
        assertEquals(2, manyThreads.size(), "readMany answered from " + manyThreads);
        assertEquals(1, singleThreads.size(), "single reads answered from " + singleThreads);
        assertTrue(manyThreads.containsAll(singleThreads), "the loop of single reads takes readMany calls too");
    }

    @Test
    void oneReadManyConsumerPerCoreAtMostOnePerEventLoop(Vertx vertx) {
        assertEquals(1, SidecarConfig.readManyConsumers(1, 2), "one core: one consumer of everything");
        assertEquals(1, SidecarConfig.readManyConsumers(0, 2), "at least one");
        assertEquals(4, SidecarConfig.readManyConsumers(4, 8));
        assertEquals(2, SidecarConfig.readManyConsumers(8, 2), "no two on one event loop");
        int loops = VertxInternals.eventLoops(vertx);
        assertTrue(loops >= 1 && loops == new VertxOptions().getEventLoopPoolSize(), "the default pool: " + loops);
    }
}
