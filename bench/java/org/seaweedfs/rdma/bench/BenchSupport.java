package org.seaweedfs.rdma.bench;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** What the bench mains (bench/run.sh, bench/scale.sh) share: percentiles as JSON, running on a context, waiting. */
public final class BenchSupport {

    private BenchSupport() {
    }

    /** The p-th percentile (nearest rank) of sorted nanosecond samples, in microseconds. */
    public static double pct(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int i = (int) Math.min(sorted.length - 1, Math.ceil(p / 100.0 * sorted.length) - 1);
        return sorted[Math.max(0, i)] / 1e3;
    }

    /** {@code "50.00":x,"90.00":y,...} (microseconds), the pcts_us object of bench/README.md without braces. */
    public static String pctsJson(long[] sorted) {
        StringBuilder out = new StringBuilder();
        for (double p : new double[] {50, 90, 99, 99.9}) {
            out.append(out.length() == 0 ? ""
                    : ",").append(String.format(Locale.ROOT, "\"%.2f\":%.2f", p, pct(sorted, p)));
        }
        return out.toString();
    }

    /** Starts {@code work} on {@code context}; its future completes there. */
    public static <T> Future<T> onContext(Context context, Supplier<Future<T>> work) {
        Promise<T> promise = Promise.promise();
        context.runOnContext(v -> work.get().onComplete(promise));
        return promise.future();
    }

    /** The future's result, waited for on this (not a Vert.x) thread for at most five minutes: a run may take long. */
    public static <T> T await(Future<T> future) {
        try {
            return future.toCompletionStage().toCompletableFuture().get(5, TimeUnit.MINUTES);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (Exception e) {
            throw new IllegalStateException("waiting for a bench step: " + e, e);
        }
    }

    /** {@code probe}'s value once {@code ready} accepts it, probing every 100 ms for at most {@code timeout}. */
    public static <T> T until(String what, Callable<T> probe, Predicate<? super T> ready, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            T value = probe.call();
            if (ready.test(value)) {
                return value;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("not within " + timeout.toMillis() + " ms: " + what);
            }
            Thread.sleep(100);
        }
    }
}
