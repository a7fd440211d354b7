package org.seaweedfs.rdma.client;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import java.util.List;
import org.seaweedfs.rdma.config.SidecarConfig;
import org.seaweedfs.rdma.sidecar.NeedleSource;

/**
 * Reads needles for a Vert.x application. Two implementations with the same results and the same failures
 * ({@link NeedleException}, carrying the event bus's codes):
 * <ul>
 * <li>{@code SeaweedRdma.client()} — in the sidecar's own process: the read runs on the caller's context, with no
 * event-bus message and no thread hop (the RDMA get itself completes on the calling event loop);</li>
 * <li>{@link #overEventBus(Vertx)} — anywhere on the (possibly clustered) event bus of a sidecar: requests to
 * {@code seaweedfs.needle.read} / {@code seaweedfs.needle.stat} / {@code seaweedfs.needle.readMany}.</li>
 * </ul>
 * Futures complete on the caller's context. A {@link Needle}'s body is a heap buffer the caller owns.
 */
public interface NeedleClient {

    /** The whole needle (decompressed when stored gzipped). */
    default Future<Needle> read(String fid) {
        return read(fid, 0, -1);
    }

    /**
     * {@code length} bytes (-1: to the end) from {@code offset} of the needle's plain bytes. Like a file read, a
     * slice is cut short at the end; an offset past the end fails RANGE_NOT_SATISFIABLE.
     */
    Future<Needle> read(String fid, long offset, long length);

    /** The needle's metadata (its record is read and its checksum verified). */
    Future<NeedleInfo> stat(String fid);

    /**
     * Many whole needles in one call: one result per fid, in request order, each the needle (as {@link #read(String)}
     * gives it) or the failure of that fid alone (a malformed, unknown, deleted or corrupt fid fails only its own
     * element). The reads are issued together, so their gets are posted together and their location misses asked
     * for in one batch; at most {@code sidecar.batch.window} of them hold read buffers at once. The future fails
     * only when the call as a whole cannot be made (over the event bus: more than {@code sidecar.batch.maxFids}
     * fids, no sidecar, a timeout).
     */
    Future<List<NeedleResult>> readMany(List<String> fids);

    /**
     * As {@link #readMany(List)}, each result handed to {@code each} in request order as soon as it and those before
     * it are read, none kept, each needle's body <em>lent</em>: valid only while {@code each} runs. The in-process
     * client lends the read's own memory (the pooled read buffer, or the same-host agent's memory it was verified
     * in) instead of a heap copy, and takes it back when {@code each} returns, after which any use of that body
     * throws; the event-bus client lends slices of its reply. Completes with the number of results once every one
     * was handed on; fails as {@link #readMany(List)} does, or with what {@code each} threw (the reads not handed on
     * yet are then released and nothing more is handed on).
     */
    default Future<Integer> readMany(List<String> fids, Handler<NeedleResult> each) {
        return readMany(fids).map(results -> {
            results.forEach(each::handle);
            return results.size();
        });
    }

    /** A client that speaks the event-bus API of a sidecar reachable on {@code vertx}'s event bus. */
    static NeedleClient overEventBus(Vertx vertx) {
        return overEventBus(vertx, new DeliveryOptions());
    }

    /** As {@link #overEventBus(Vertx)}, with {@code options} for every request (send timeout, headers). */
    static NeedleClient overEventBus(Vertx vertx, DeliveryOptions options) {
        return new EventBusNeedleClient(vertx, options);
    }

    /**
     * A client over a read path in this process ({@code SeaweedRdma.client()} returns one over the sidecar's).
     * {@code maxNeedleBytes} bounds a gzipped needle's decompressed size, as {@code sidecar.maxNeedleBytes} does.
     */
    static NeedleClient overSource(Vertx vertx, NeedleSource source, long maxNeedleBytes) {
        return overSource(vertx, source, maxNeedleBytes, SidecarConfig.Batch.DEFAULT.window());
    }

    /** As {@link #overSource(Vertx, NeedleSource, long)}; {@code window} bounds a readMany's reads held at once. */
    static NeedleClient overSource(Vertx vertx, NeedleSource source, long maxNeedleBytes, int window) {
        return new SourceNeedleClient(vertx, source, maxNeedleBytes, window);
    }
}
