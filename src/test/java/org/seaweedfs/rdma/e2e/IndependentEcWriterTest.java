package org.seaweedfs.rdma.e2e;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.seaweedfs.rdma.sidecar.connection.RemoteVolume;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.Fixtures;
import org.seaweedfs.rdma.volume.ec.EcFiles;
import org.seaweedfs.rdma.volume.ec.EcTestVolumes;
import org.seaweedfs.rdma.volume.ec.EcVolumeInfo;
import org.seaweedfs.rdma.volume.ec.IndependentEcWriter;
import org.seaweedfs.rdma.volume.ec.EcWriter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.seaweedfs.rdma.testing.Await.await;
import static org.seaweedfs.rdma.testing.Await.until;

/**
 * EC volumes this project did not write: SeaweedFS's own 1.dat/1.idx erasure-coded by
 * {@code tools/independent_ec_encode.py}, a writer made from the format description alone (real 1 MiB blocks,
 * the klauspost/reedsolomon matrix), at data/parity ratios from 4 + 2 to 12 + 4, its shards split over two agents.
 * Every needle reads byte-exact over RDMA through HTTP and the event bus, first with every shard present, then with
 * a data shard on no agent (rebuilt over RDMA from the other data shards and a parity shard); deleted needles answer
 * 404 on both faces.
 */
class IndependentEcWriterTest {

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0} + {1} shards")
    @CsvSource({"10, 4", "6, 3", "12, 4", "4, 2"})
    void everyNeedleReadsByteExactFromTwoAgentsAndWithADataShardMissing(int dataShards, int parityShards)
            throws Exception {
        Path[] dirs = EcShardSplit.overTwo(independentlyEncoded(dataShards, parityShards), dataShards + parityShards,
                tmp, id -> id % 2 == 0);
        Path a = dirs[0];
        Path b = dirs[1];
        List<FixtureNeedles.Expected> needles = FixtureNeedles.live(Fixtures.volumes(), 1);
        try (Stack agentA = Stack.agent(a, 0); Stack agentB = Stack.agent(b, 0);
             Stack sidecar = Stack.start("roles: [sidecar]\n"
                     + "http: {host: 127.0.0.1, port: 0, instances: 1}\n"
                     + "sidecar:\n"
                     + "  agents: ['127.0.0.1:" + agentA.agentPort() + "', '127.0.0.1:" + agentB.agentPort() + "']\n"
                     + "  bufferPool: {bufferSize: 1MiB, totalBytes: 32MiB}\n"
                     + "  fallback: []\n"
                     + "  ecRebuild: rdma\n"
                     + Stack.UCX)) {
            until("the sidecar connected to both agents", () -> sidecar.agentUp()
                    && sidecar.server.connections().volumesOf(1).size() == 2);
            WebClient http = WebClient.create(sidecar.vertx);
            readsAllOverRdma(sidecar, http, needles, "every shard present");

            // Data shard 1 (bytes 1-2 MiB of the .dat: dozens of needles) leaves agent b: nobody holds it.
            Files.delete(b.resolve("1.ec01"));
            until("shard 1 unlisted", () -> sidecar.server.connections().volumesOf(1).stream()
                    .map(RemoteVolume::info).noneMatch(v -> v.ec().shard(1) != null));
            readsAllOverRdma(sidecar, http, needles, "data shard 1 missing");

            for (FileId fid : FixtureNeedles.deleted(Fixtures.volumes(), 1)) {
                assertEquals(404, await(http.get(sidecar.httpPort(), "127.0.0.1", "/" + fid).send()).statusCode(),
                        fid.toString());
                ReplyException e = assertThrows(ReplyException.class, () -> await(sidecar.vertx.eventBus()
                        .request("seaweedfs.needle.read", new JsonObject().put("fid", fid.toString()))));
                assertEquals(404, e.failureCode(), fid.toString());
            }
        }
    }

    /** Two writers from one description: the project's {@link EcWriter} writes the same shards and index. */
    @ParameterizedTest(name = "{0} + {1} shards")
    @CsvSource({"6, 3", "12, 4", "4, 2"})
    void theProjectsWriterWritesWhatTheIndependentWriterWrites(int dataShards, int parityShards) throws Exception {
        Path independent = independentlyEncoded(dataShards, parityShards);
        EcWriter.Result ours = EcTestVolumes.encodeFixtureRealBlocks(Files.createDirectories(tmp.resolve("ours")), "",
                dataShards, parityShards);
        EcFiles files = ours.files();
        for (int id = 0; id < dataShards + parityShards; id++) {
            assertEquals(-1L, Files.mismatch(files.shard(id), independent.resolve(String.format("1.ec%02d", id))),
                    "shard " + id);
        }
        assertEquals(-1L, Files.mismatch(files.ecx(), independent.resolve("1.ecx")), ".ecx");
        assertEquals(ours.info(), EcVolumeInfo.read(independent.resolve("1.vif")));
    }

    private void readsAllOverRdma(Stack sidecar, WebClient http, List<FixtureNeedles.Expected> needles, String when) {
        for (FixtureNeedles.Expected e : needles) {
            String fid = e.fid().toString();
            HttpResponse<Buffer> response = await(http.get(sidecar.httpPort(), "127.0.0.1", "/" + fid).send());
            assertEquals(200, response.statusCode(), () -> when + ": " + fid + ": " + response.bodyAsString());
            assertArrayEquals(e.plain(), response.bodyAsBuffer().getBytes(), when + ": " + fid);
            assertEquals("rdma", response.getHeader("X-Source"), when + ": " + fid);
            Message<Object> m = await(sidecar.vertx.eventBus().request("seaweedfs.needle.read",
                    new JsonObject().put("fid", fid)));
            assertArrayEquals(e.plain(), ((Buffer) m.body()).getBytes(), when + ": " + fid);
            assertEquals("rdma", m.headers().get("source"), when + ": " + fid);
        }
    }

    /** Fixture volume 1 (written by SeaweedFS) erasure-coded by the independent writer into a fresh directory. */
    private Path independentlyEncoded(int dataShards, int parityShards) throws IOException, InterruptedException {
        return IndependentEcWriter.encodeFixture(tmp.resolve("independent-" + dataShards + "-" + parityShards),
                dataShards, parityShards);
    }
}
