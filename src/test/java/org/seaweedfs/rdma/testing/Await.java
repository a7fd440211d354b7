package org.seaweedfs.rdma.testing;

import io.vertx.core.Future;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * The one way the tests wait: for a future's outcome, or, where nothing signals the awaited state, by polling a
 * condition until a deadline. The bounds are generous (a shared, loaded machine can be slow); no test asserts how long
 * anything took.
 */
public final class Await {

    /** How long a test waits for anything unless it says otherwise. */
    public static final Duration TIMEOUT = Duration.ofSeconds(60);

    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private Await() {
    }

    /** The future's result; its failure is thrown as it is (wrapped in a CompletionException when checked). */
    public static <T> T await(Future<T> future) {
        return await(future, TIMEOUT);
    }

    public static <T> T await(Future<T> future, Duration timeout) {
        try {
            return future.toCompletionStage().toCompletableFuture().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new CompletionException(cause);
        } catch (TimeoutException e) {
            throw new AssertionError("no outcome within " + timeout + " for " + future, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting for " + future, e);
        }
    }

    /** Polls until {@code condition} holds. */
    public static void until(String what, BooleanSupplier condition) {
        until(what, condition, TIMEOUT);
    }

    public static void until(String what, BooleanSupplier condition, Duration timeout) {
        until(what, condition::getAsBoolean, ok -> ok, timeout);
    }

    /** Polls {@code probe} until its value satisfies {@code ready}, and returns that value. */
    public static <T> T until(String what, Callable<T> probe, Predicate<? super T> ready) {
        return until(what, probe, ready, TIMEOUT);
    }

    public static <T> T until(String what, Callable<T> probe, Predicate<? super T> ready, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        T last;
        while (!ready.test(last = call(probe))) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + timeout + ": " + what + " (last seen: " + last + ")");
            }
            LockSupport.parkNanos(POLL_NANOS);
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
        return last;
    }

    private static <T> T call(Callable<T> probe) {
        try {
            return probe.call();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new CompletionException(e);
        }
    }
}
