package org.seaweedfs.rdma.client;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.batch.ManyReads;
import org.seaweedfs.rdma.sidecar.batch.OrderedReads;
import org.seaweedfs.rdma.sidecar.batch.PlainRange;
import org.seaweedfs.rdma.volume.FileId;

/**
 * {@link NeedleClient} over a read path in this process: the call goes straight to the {@link NeedleSource} on the
 * caller's context (the read path completes there), the bytes are copied out of pooled memory and the pooled
 * buffer released before the caller sees them (a lending {@code readMany} lends that memory instead,
 * {@link LentBody}). Called off any Vert.x context, it runs on a context of {@code vertx}.
 */
final class SourceNeedleClient implements NeedleClient {

    private final Vertx vertx;
    private final NeedleSource source;
    private final long maxNeedleBytes;
    private final int window;

    SourceNeedleClient(Vertx vertx, NeedleSource source, long maxNeedleBytes, int window) {
        this.vertx = vertx;
        this.source = source;
        this.maxNeedleBytes = maxNeedleBytes;
        this.window = window;
    }

    @Override
    public Future<Needle> read(String fid, long offset, long length) {
        return onContext(() -> {
            FileId id = NeedleWire.fileId(fid);
            NeedleWire.atLeast("offset", offset, 0);
            NeedleWire.atLeast("length", length, -1);
            return source.readSlice(id, null, offset, length, maxNeedleBytes).transform(ar -> ar.succeeded()
                    ? Future.succeededFuture(NeedleWire.needle(fid, ar.result().stat(),
                            NeedleWire.takeBody(ar.result())))
                    : Future.failedFuture(NeedleWire.failure(ar.cause())));
        });
    }

    @Override
    public Future<List<NeedleResult>> readMany(List<String> fids) {
        List<String> asked = new ArrayList<>(fids); // the caller may change its list meanwhile
        return onContext(() -> ManyReads.collect(asked.size(), window,
                range(asked),
                (i, ar) -> ar.succeeded()
                        ? NeedleResult.of(NeedleWire.needle(asked.get(i), ar.result().stat(),
                                NeedleWire.takeBody(ar.result())))
                        : NeedleResult.failed(asked.get(i), NeedleWire.failure(ar.cause()))));
    }

    @Override
    public Future<Integer> readMany(List<String> fids, Handler<NeedleResult> each) {
        List<String> asked = new ArrayList<>(fids);
        return onContext(() -> ManyReads.each(asked.size(), window,
                range(asked),
                (i, ar) -> {
                    if (ar.failed()) {
                        each.handle(NeedleResult.failed(asked.get(i), NeedleWire.failure(ar.cause())));
                        return null;
                    }
                    NeedleContent content = ar.result();
                    LentBody body = LentBody.of(content);
                    try {
                        each.handle(NeedleResult.of(NeedleWire.needle(asked.get(i), content.stat(), body.buffer())));
                    } finally {
                        body.takeBack();
                        content.release();
                    }
                    return null;
                }));
    }

    /** The reads of {@code asked}, a range at a time. */
    private OrderedReads.Range range(List<String> asked) {
        return PlainRange.of(source, maxNeedleBytes, i -> NeedleWire.fileId(asked.get(i)));
    }

    @Override
    public Future<NeedleInfo> stat(String fid) {
        return onContext(() -> source.stat(NeedleWire.fileId(fid)).transform(ar -> ar.succeeded()
                ? Future.succeededFuture(NeedleWire.info(ar.result()))
                : Future.failedFuture(NeedleWire.failure(ar.cause()))));
    }

    /** Runs {@code call} here when on a Vert.x context (the fast path), else on one of {@code vertx}'s. */
    private <T> Future<T> onContext(Supplier<Future<T>> call) {
        if (Vertx.currentContext() != null) {
            return guarded(call);
        }
        Context context = vertx.getOrCreateContext();
        Promise<T> promise = Promise.promise();
        context.runOnContext(v -> guarded(call).onComplete(promise));
        return promise.future();
    }

    private static <T> Future<T> guarded(Supplier<Future<T>> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            return Future.failedFuture(NeedleWire.failure(e));
        }
    }
}
