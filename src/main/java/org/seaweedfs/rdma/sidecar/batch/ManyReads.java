package org.seaweedfs.rdma.sidecar.batch;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import org.seaweedfs.rdma.sidecar.NeedleContent;

/** Every result of an {@link OrderedReads}, taken in request order as soon as it is there and turned into a value. */
public final class ManyReads {

    /** Turns the result of the read at an index into a value; it owns (and must release) a successful content. */
    public interface Take<T> {
        T apply(int index, AsyncResult<NeedleContent> result);
    }

    private ManyReads() {
    }

    /**
     * Reads {@code count} needles through {@code read}, at most {@code window} held at once; the values come in
     * request order, one per read. Call on the context the read path completes on.
     */
    public static <T> Future<List<T>> collect(int count, int window, IntFunction<Future<NeedleContent>> read,
                                              Take<T> take) {
        return collect(count, new OrderedReads(count, window, read), take);
    }

    /** As {@link #collect(int, int, IntFunction, Take)}, the reads started a range at a time. */
    public static <T> Future<List<T>> collect(int count, int window, OrderedReads.Range read, Take<T> take) {
        return collect(count, new OrderedReads(count, window, read), take);
    }

    private static <T> Future<List<T>> collect(int count, OrderedReads reads, Take<T> take) {
        List<T> values = new ArrayList<>(count);
        Promise<List<T>> done = Promise.promise();
        reads.onReady(v -> {
            try {
                while (reads.ready()) {
                    int index = values.size();
                    values.add(take.apply(index, reads.take()));
                    reads.finished();
                }
            } catch (RuntimeException e) {
                reads.cancel();
                done.tryFail(e);
                return;
            }
            if (reads.done()) {
                done.tryComplete(values);
            }
        });
        if (count == 0) {
            return Future.succeededFuture(values);
        }
        reads.start();
        return done.future();
    }
}
