package org.seaweedfs.rdma.e2e;

import org.seaweedfs.rdma.testing.AgentSetup;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.config.EcRebuild;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.connection.AgentConnection;
import org.seaweedfs.rdma.sidecar.connection.AgentRoute;
import org.seaweedfs.rdma.sidecar.connection.RemoteVolume;
import org.seaweedfs.rdma.sidecar.ec.EcShardHolders;
import org.seaweedfs.rdma.sidecar.ec.EcShardReader;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.sidecar.read.NeedleReader;
import org.seaweedfs.rdma.sidecar.read.ReadPathOptions;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NeedleLayout;
import org.seaweedfs.rdma.volume.ec.EcIndex;
import org.seaweedfs.rdma.volume.ec.EcLayout;
import org.seaweedfs.rdma.volume.ec.EcTestVolumes;
import org.seaweedfs.rdma.volume.ec.EcWriter;
import org.seaweedfs.rdma.volume.Fixtures;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Objects;
import java.util.function.IntPredicate;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;
import static org.seaweedfs.rdma.testing.Await.until;

/**
 * Erasure-coded volumes read over real UCX: SeaweedFS's 1.dat/1.idx encoded by {@link EcWriter} with its shards
 * split over two agents. Every needle reads byte-exact (large- and small-block regions, default and custom shard
 * counts), a needle deleted in the .ecj reads as not found, and a data shard that leaves is rebuilt from the
 * others over RDMA (or, with {@code sidecar.ecRebuild: fallback}, the read fails retriably); then the real sidecar
 * serves EC needles over HTTP and the event bus like any other.
 */
class EcReadEndToEndTest {

    private static final String TLS = "tcp";

    @TempDir
    Path tmp;

    /** Reads that found a shard no agent lists (each asks for more holders: the master, in the product). */
    private final java.util.concurrent.atomic.AtomicInteger shardsMissing =
            new java.util.concurrent.atomic.AtomicInteger();

    /** Splits the written EC volume's shards: those {@code inA} to directory a, the rest to b. */
    private Path[] split(EcWriter.Result ec, IntPredicate inA) throws Exception {
        return EcShardSplit.overTwo(ec.files().ecx().getParent(), ec.info().dataShards() + ec.info().parityShards(),
                tmp, inA);
    }

    @Test
    void everyNeedleReadsFromShardsOnTwoAgentsDeletionsMissAndAMissingShardIsRebuilt() throws Exception {
        EcWriter.Result ec = EcTestVolumes.encodeFixture(Files.createDirectories(tmp.resolve("src")), 10, 4);
        Path[] dirs = split(ec, id -> id % 2 == 0);
        List<FixtureNeedles.Expected> needles = FixtureNeedles.live(Fixtures.volumes(), 1);
        try (AgentHarness a = smallBlocks(dirs[0]); AgentHarness b = smallBlocks(dirs[1]);
             ReadPathHarness.SidecarSide side = new ReadPathHarness.SidecarSide(TLS,
                     new RegisteredBufferPool.Settings(64 << 10, 64, 1 << 20, 16))) {
            AgentConnection toA = side.connect(a.port(), null);
            AgentConnection toB = side.connect(b.port(), null);
            NeedleReader rdma = reader(side, toA, toB, EcRebuild.RDMA);
            for (FixtureNeedles.Expected e : needles) {
                assertArrayEquals(e.stored(), read(side, rdma, e.fid()), e.fid().toString());
            }

            // A deletion in the .ecj (both holders journal it): the needle reads as not found.
            FileId victim = needles.get(3).fid();
            for (Path dir : dirs) {
                Files.write(dir.resolve("1.ecj"), ByteBuffer.allocate(8).putLong(victim.key()).array(),
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            }
            until("the deletion reached the sidecar", () -> failure(side, rdma, victim) == ReadFailure.Kind.NOT_FOUND);

            // Data shard 2 leaves agent a: with rdma it is rebuilt from the other shards, byte-exact.
            Files.delete(dirs[0].resolve("1.ec02"));
            until("shard 2 unlisted", () -> toA.volume(1).info().ec().shard(2) == null);
            List<FixtureNeedles.Expected> onShard2;
            try (EcIndex ecx = EcIndex.open(dirs[0].resolve("1.ecx"), IndexFormat.OFFSET4)) {
                onShard2 = needles.stream().filter(e -> !e.fid().equals(victim))
                        .filter(e -> touches(toA.volume(1), ecx, e.fid(), 2)).toList();
            }
            assertTrue(onShard2.size() > 5, "needles with bytes on shard 2: " + onShard2.size());
            int missingBefore = shardsMissing.get();
            for (FixtureNeedles.Expected e : needles) {
                if (!e.fid().equals(victim)) {
                    assertArrayEquals(e.stored(), read(side, rdma, e.fid()), e.fid() + " (rebuilt)");
                }
            }
            assertTrue(shardsMissing.get() - missingBefore >= onShard2.size(),
                    "each read needing shard 2 asked for holders");
            // With fallback, a needle needing shard 2 fails retriably (the resilient path then reads over HTTP).
            NeedleReader fallback = reader(side, toA, toB, EcRebuild.FALLBACK);
            ReadFailure.Kind kind = failure(side, fallback, onShard2.get(0).fid());
            assertEquals(ReadFailure.Kind.UNAVAILABLE, kind);
        }
    }

    @Test
    void customShardCountsWithRealBlockSizesReadOverHttpAndTheEventBus() throws Exception {
        // 3 + 2 with SeaweedFS's 1 MiB small blocks: rows of 3 MiB, needles cross shard boundaries.
        EcWriter.Result ec =
                EcTestVolumes.encodeFixtureRealBlocks(Files.createDirectories(tmp.resolve("src")), "", 3, 2);
        Path[] dirs = split(ec, id -> id == 0 || id == 3);
        List<FixtureNeedles.Expected> needles = FixtureNeedles.live(Fixtures.volumes(), 1);
        try (Stack a = Stack.agent(dirs[0], 0); Stack b = Stack.agent(dirs[1], 0);
             Stack sidecar = Stack.start("roles: [sidecar]\n"
                     + "http: {host: 127.0.0.1, port: 0, instances: 1}\n"
                     + "sidecar:\n"
                     + "  agents: ['127.0.0.1:" + a.agentPort() + "', '127.0.0.1:" + b.agentPort() + "']\n"
                     + "  bufferPool: {bufferSize: 1MiB, totalBytes: 16MiB}\n"
                     + "  fallback: []\n"
                     + Stack.UCX)) {
            until("the sidecar connected to both agents", () -> sidecar.agentUp()
                    && sidecar.server.connections().volumesOf(1).size() == 2);
            WebClient http = WebClient.create(sidecar.vertx);
            for (FixtureNeedles.Expected e : needles) {
                String fid = e.fid().toString();
                var response = await(http.get(sidecar.httpPort(), "127.0.0.1", "/" + fid).send());
                assertEquals(200, response.statusCode(), fid);
                assertArrayEquals(e.plain(), response.bodyAsBuffer().getBytes(), fid);
                Message<Object> m = await(sidecar.vertx.eventBus().request("seaweedfs.needle.read",
                        new JsonObject().put("fid", fid)));
                assertArrayEquals(e.plain(), ((Buffer) m.body()).getBytes(), fid);
                assertEquals("rdma", m.headers().get("source"), fid);
            }
            FixtureNeedles.deleted(Fixtures.volumes(), 1).forEach(fid -> {
                var response = await(http.get(sidecar.httpPort(), "127.0.0.1", "/" + fid).send());
                assertEquals(404, response.statusCode(), fid.toString());
                ReplyException e = assertThrows(ReplyException.class, () -> await(sidecar.vertx.eventBus()
                        .request("seaweedfs.needle.read", new JsonObject().put("fid", fid.toString()))));
                assertEquals(404, e.failureCode());
            });
        }
    }

    @Test
    void aMissingDataShardIsRebuiltOverRdmaOrServedByTheHttpFallbackAsConfigured() throws Exception {
        EcWriter.Result ec =
                EcTestVolumes.encodeFixtureRealBlocks(Files.createDirectories(tmp.resolve("src")), "", 3, 2);
        Path[] dirs = split(ec, id -> id % 2 == 0);
        Files.delete(dirs[1].resolve("1.ec01")); // data shard 1 is on no agent
        Path plain = Fixtures.copyDir("volumes", Files.createDirectories(tmp.resolve("plain")));
        List<FixtureNeedles.Expected> needles = FixtureNeedles.live(Fixtures.volumes(), 1);
        io.vertx.core.Vertx stubs = io.vertx.core.Vertx.vertx();
        try (Stack a = Stack.agent(dirs[0], 0); Stack b = Stack.agent(dirs[1], 0)) {
            org.seaweedfs.rdma.sidecar.StubVolumeServer volumeServer =
                    await(new org.seaweedfs.rdma.sidecar.StubVolumeServer(stubs).start(plain));
            org.seaweedfs.rdma.sidecar.StubMaster master =
                    await(new org.seaweedfs.rdma.sidecar.StubMaster(stubs).start());
            master.locate(1, volumeServer.url());
            for (String mode : List.of("rdma", "fallback")) {
                try (Stack sidecar = Stack.start("roles: [sidecar]\n"
                        + "http: {host: 127.0.0.1, port: 0, instances: 1}\n"
                        + "sidecar:\n"
                        + "  agents: ['127.0.0.1:" + a.agentPort() + "', '127.0.0.1:" + b.agentPort() + "']\n"
                        + "  master: '127.0.0.1:" + master.port() + "'\n"
                        + "  bufferPool: {bufferSize: 1MiB, totalBytes: 32MiB}\n"
                        + "  fallback: [http]\n"
                        + "  ecRebuild: " + mode + "\n"
                        + Stack.UCX)) {
                    until("the sidecar connected to both agents", () -> sidecar.agentUp()
                            && sidecar.server.connections().volumesOf(1).size() == 2);
                    int rebuiltOrFallen = 0;
                    for (FixtureNeedles.Expected e : needles) {
                        Message<Object> m = await(sidecar.vertx.eventBus().request("seaweedfs.needle.read",
                                new JsonObject().put("fid", e.fid().toString())));
                        assertArrayEquals(e.plain(), ((Buffer) m.body()).getBytes(), mode + " " + e.fid());
                        rebuiltOrFallen += "rdma".equals(m.headers().get("source")) ? 0 : 1;
                    }
                    if (mode.equals("rdma")) {
                        assertEquals(0, rebuiltOrFallen, "every needle read over RDMA, shard 1 rebuilt");
                    } else {
                        assertTrue(rebuiltOrFallen > 0, "needles on shard 1 came from the HTTP fallback");
                    }
                }
            }
        } finally {
            await(stubs.close());
        }
    }

    private static AgentHarness smallBlocks(Path dir) {
        return new AgentHarness(dir, TLS, AgentSetup.ecVolumes());
    }

    private NeedleReader reader(ReadPathHarness.SidecarSide side, AgentConnection toA, AgentConnection toB,
                                       EcRebuild rebuild) {
        EcShardReader ec = new EcShardReader(EcShardHolders.of(vid -> Stream.of(toA.volume(vid), toB.volume(vid))
                .filter(Objects::nonNull).toList(), vid -> shardsMissing.incrementAndGet()), side.pool, rebuild,
                java.time.Duration.ofMillis(ReadPathOptions.defaults().readTimeoutMs()));
        return new NeedleReader(side.vertx, vid -> AgentRoute.of(toA, vid), side.pool, ReadPathOptions.defaults(), ec);
    }

    /** Whether the needle's record has bytes on the shard. */
    private static boolean touches(RemoteVolume volume, EcIndex ecx, FileId fid, int shardId) {
        var info = volume.info().ec();
        EcLayout layout =
                new EcLayout(info.dataShards(), info.parityShards(), info.largeBlockSize(), info.smallBlockSize());
        EcIndex.Entry at;
        try {
            at = ecx.find(fid.key());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return at != null && layout.locate(layout.shardDatSize(info.datFileSize(), info.shardSize()), at.offset(),
                NeedleLayout.usedLength(at.size(), volume.version())).stream().anyMatch(i -> i.shardId() == shardId);
    }

    private static byte[] read(ReadPathHarness.SidecarSide side, NeedleReader reader, FileId fid) {
        return await(onContext(side, reader, fid).map(content -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            content.chunks().forEach(c -> out.writeBytes(c.getBytes()));
            content.release();
            return out.toByteArray();
        }));
    }

    private static ReadFailure.Kind failure(ReadPathHarness.SidecarSide side, NeedleReader reader, FileId fid) {
        Future<NeedleContent> read = onContext(side, reader, fid);
        Throwable e = await(read.map(c -> {
            c.release();
            return (Throwable) null; // read fine: no failure (yet)
        }).otherwise(x -> x));
        return e == null ? null : assertInstanceOf(ReadFailure.class, e, String.valueOf(e)).kind();
    }

    private static Future<NeedleContent> onContext(ReadPathHarness.SidecarSide side, NeedleReader reader, FileId fid) {
        Context context = side.vertx.getOrCreateContext();
        Promise<NeedleContent> done = Promise.promise();
        context.runOnContext(v -> reader.read(fid).onComplete(done));
        return done.future();
    }
}
