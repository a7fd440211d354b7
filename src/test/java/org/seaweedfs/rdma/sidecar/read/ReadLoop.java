package org.seaweedfs.rdma.sidecar.read;

import org.seaweedfs.rdma.sidecar.NeedleSource;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.List;
import org.seaweedfs.rdma.volume.FileId;

/**
 * Issues {@code total} reads of the given needles from one Vert.x context, {@code lanes} at a time (each lane
 * starts its next read when the last one completes), releasing every content. Optionally records each read's
 * latency in nanoseconds.
 */
final class ReadLoop {

    private final NeedleSource source;
    private final List<FileId> fids;
    private final long total;
    private final long[] latencies;
    private final Promise<Long> done = Promise.promise();
    private long started;
    private long finished;
    private long bytes;

    private ReadLoop(NeedleSource source, List<FileId> fids, long total, boolean recordLatency) {
        this.source = source;
        this.fids = fids;
        this.total = total;
        this.latencies = recordLatency ? new long[(int) total] : null;
    }

    /** Completes with the data bytes read; fails with the first read failure. */
    static Future<Long> run(Vertx vertx, NeedleSource source, List<FileId> fids, long total, int lanes,
            long[] latencies) {
        ReadLoop loop = new ReadLoop(source, fids, total, latencies != null);
        vertx.runOnContext(v -> {
            for (int i = 0; i < lanes && i < total; i++) {
                loop.next();
            }
        });
        return loop.done.future().map(b -> {
            if (latencies != null) {
                System.arraycopy(loop.latencies, 0, latencies, 0, (int) total);
            }
            return b;
        });
    }

    private void next() {
        if (started == total) {
            return;
        }
        long index = started++;
        long t0 = latencies == null ? 0 : System.nanoTime();
        source.read(fids.get((int) (index % fids.size()))).onComplete(ar -> {
            if (ar.failed()) {
                done.tryFail(ar.cause());
                return;
            }
            if (latencies != null) {
                latencies[(int) index] = System.nanoTime() - t0;
            }
            bytes += ar.result().stat().size();
            ar.result().release();
            if (++finished == total) {
                done.tryComplete(bytes);
            } else {
                next();
            }
        });
    }
}
