package org.seaweedfs.rdma.sidecar.read;

import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPath;
import org.seaweedfs.rdma.sidecar.connection.AgentConnection;
import org.seaweedfs.rdma.sidecar.connection.AgentRoute;
import org.seaweedfs.rdma.sidecar.connection.AgentRouter;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.seaweedfs.rdma.protocol.ReadThroughData;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.NeedleLayout;

/**
 * The degraded path: the agent copies the record into {@code ReadThroughData} frames over the control channel
 * (several for records above one frame), and this side verifies it exactly as the RDMA path does (key, cookie,
 * Size 0, ttl, CRC). No registered memory is involved; the data arrives on the heap.
 *
 * <p>Threads: as {@link NeedleReader}: any caller thread, completion on the caller's context, bounded in-flight
 * reads (the caller holds each to the read's deadline).
 */
public final class ReadThroughSource extends GatedReadPath {

    public ReadThroughSource(Vertx vertx, AgentRouter router, ReadPathOptions options) {
        super(router, new ReadGate(vertx, options, new ReadCounters(), ReadPath.READ_THROUGH));
    }

    @Override
    public Future<NeedleContent> read(AgentRoute route, FileId fid) {
        return gate.start(fid, read -> read.route(route, r ->
                next(read, r.connection(), r.volume().version(), new ArrayList<>(), 0, -1, -1)));
    }

    /**
     * Asks for the record from {@code have}; {@code used} (bytes up to the checksum/timestamp) and {@code size}
     * are known once the header has arrived (-1 before).
     */
    private void next(ReadAttempt read, AgentConnection connection, int version, List<ByteBuffer> pieces, long have,
                      long used, long size) {
        int max = connection.maxReadThroughBytes();
        int length = used < 0 ? max : (int) Math.min(max, used - have);
        connection.readThrough(read.fid(), have, length).onComplete(ar -> read.run(() -> {
            if (read.isDone()) {
                return;
            }
            if (ar.failed()) {
                read.fail(ar.cause());
                return;
            }
            ReadThroughData data = ar.result();
            if (data.offset() != have || data.bytes().length == 0) {
                read.fail(ReadFailure.corrupt("agent " + connection.peer() + " sent " + data.bytes().length
                        + " bytes at " + data.offset() + " of " + read.fid() + "'s record, asked for " + length + " at "
                                + have));
                return;
            }
            pieces.add(ByteBuffer.wrap(data.bytes()));
            long got = have + data.bytes().length;
            long recordSize = size;
            long recordUsed = used;
            if (recordSize < 0) {
                if (got < NeedleLayout.HEADER_SIZE) {
                    read.fail(ReadFailure.corrupt("agent " + connection.peer() + " sent a record of " + got
                            + " bytes for "
                            + read.fid() + ", shorter than a needle header"));
                    return;
                }
                recordSize = pieces.get(0).getInt(12) & 0xFFFF_FFFFL;
                if (recordSize > gate.options().maxNeedleBytes()) {
                    read.fail(ReadFailure.tooLarge(read.fid(), recordSize, gate.options().maxNeedleBytes()));
                    return;
                }
                recordUsed = NeedleLayout.usedLength(recordSize, version);
            }
            if (got < recordUsed && recordSize > 0) {
                next(read, connection, version, pieces, got, recordUsed, recordSize);
                return;
            }
            try {
                VerifiedRecord record = VerifiedRecord.check(read.fid(), recordSize, version, pieces,
                        System::currentTimeMillis, ReadPath.READ_THROUGH.wire,
                        "read-through from agent " + connection.peer(), 0);
                read.succeed(new VerifiedNeedle(record, VerifiedNeedle.NOTHING_HELD));
            } catch (StaleLocation e) {
                read.fail(ReadFailure.unavailable("reading " + read.fid() + " through the agent: " + e.getMessage(),
                        null));
            }
        }));
    }
}
