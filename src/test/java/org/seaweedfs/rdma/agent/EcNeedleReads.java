package org.seaweedfs.rdma.agent;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import org.seaweedfs.rdma.config.EcRebuild;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPathHarness;
import org.seaweedfs.rdma.sidecar.connection.AgentConnection;
import org.seaweedfs.rdma.sidecar.connection.AgentRoute;
import org.seaweedfs.rdma.sidecar.ec.EcShardHolders;
import org.seaweedfs.rdma.sidecar.ec.EcShardReader;
import org.seaweedfs.rdma.sidecar.read.NeedleReader;
import org.seaweedfs.rdma.sidecar.read.ReadPathOptions;
import org.seaweedfs.rdma.testing.StoredNeedles;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.ec.EcTestVolumes;

import java.time.Duration;
import java.io.ByteArrayOutputStream;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.seaweedfs.rdma.testing.Await.await;

/**
 * The sidecar's RDMA read path over one agent serving the fixture volume 1 erasure-coded (a {@link NeedleReader}
 * with an {@link EcShardReader} that rebuilds over RDMA), and what each needle must read as.
 */
final class EcNeedleReads {

    /** A live needle with data, as stored. */
    record Expected(FileId fid, byte[] data) {
    }

    private final ReadPathHarness.SidecarSide side;
    private final NeedleReader reader;
    private final EcShardReader ec;

    EcNeedleReads(ReadPathHarness.SidecarSide side, AgentConnection connection) {
        this.side = side;
        this.ec = new EcShardReader(EcShardHolders.of(vid -> Stream.of(connection.volume(vid))
                .filter(Objects::nonNull).toList(), vid -> { }), side.pool, EcRebuild.RDMA,
                Duration.ofMillis(ReadPathOptions.defaults().readTimeoutMs()));
        this.reader = new NeedleReader(side.vertx, vid -> AgentRoute.of(connection, vid), side.pool,
                ReadPathOptions.defaults(), ec);
    }

    /** What the read path did: reads, lookups, EC re-reads. */
    org.seaweedfs.rdma.sidecar.read.ReadCounters counters() {
        return reader.counters();
    }

    /** The shard reader, which counts the intervals it rebuilt. */
    EcShardReader shards() {
        return ec;
    }

    /** The live needles with data of the fixture volume 1, by key. */
    static Map<Long, Expected> fixtureNeedles() throws Exception {
        Map<Long, Expected> out = new TreeMap<>();
        StoredNeedles.of(EcTestVolumes.fixtureDat(), 1).forEach((key, n) -> out.put(key,
                new Expected(n.getKey(), n.getValue())));
        return out;
    }

    /** The needle's data, or the failure (a {@link ReadFailure} when the read path refused it). */
    Object readOrFailure(FileId fid) {
        return await(onContext(fid).map(c -> (Object) bytesOf(c)).otherwise(x -> x));
    }

    byte[] read(FileId fid) {
        return await(onContext(fid).map(EcNeedleReads::bytesOf));
    }

    ReadFailure.Kind failure(FileId fid) {
        Object got = readOrFailure(fid);
        return got instanceof ReadFailure f ? f.kind() : null;
    }

    private Future<NeedleContent> onContext(FileId fid) {
        Context context = side.vertx.getOrCreateContext();
        Promise<NeedleContent> done = Promise.promise();
        context.runOnContext(v -> reader.read(fid).onComplete(done));
        return done.future();
    }

    private static byte[] bytesOf(NeedleContent content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        content.chunks().forEach(c -> out.writeBytes(c.getBytes()));
        content.release();
        return out.toByteArray();
    }
}
