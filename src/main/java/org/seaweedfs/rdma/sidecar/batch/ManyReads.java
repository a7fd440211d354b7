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
        return each(count, reads, (i, ar) -> {
            values.add(take.apply(i, ar));
            return null;
        }).map(n -> values);
    }

    /**
     * As {@link #collect(int, int, OrderedReads.Range, Take)}, each result handed to {@code take} as soon as it and
     * those before it are there, nothing kept: completes with the count once every result was taken. When
     * {@code take} throws, the reads not taken yet are released and the future fails with what it threw.
     */
    public static Future<Integer> each(int count, int window, OrderedReads.Range read, Take<?> take) {
        return each(count, new OrderedReads(count, window, read), take);
    }

    private static Future<Integer> each(int count, OrderedReads reads, Take<?> take) {
        Promise<Integer> done = Promise.promise();
        int[] taken = {0};
        reads.onReady(v -> {
            try {
                while (reads.ready()) {
                    take.apply(taken[0]++, reads.take());
                    reads.finished();
                }
            } catch (RuntimeException | Error e) { // a caller's handler too: its call fails, none is left hanging
                reads.cancel();
                done.tryFail(e);
                return;
            }
            if (reads.done()) {
                done.tryComplete(count);
            }
        });
        if (count == 0) {
            return Future.succeededFuture(0);
        }
        reads.start();
        return done.future();
    }
}
