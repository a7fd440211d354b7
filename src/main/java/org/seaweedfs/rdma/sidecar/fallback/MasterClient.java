package org.seaweedfs.rdma.sidecar.fallback;

import org.seaweedfs.rdma.sidecar.ReadFailure;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.vertx.core.json.DecodeException;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.internals.VertxInternals;

/**
 * Asks the SeaweedFS master where a volume lives ({@code GET /dir/lookup?volumeId=<vid>}) and caches the
 * answer for a TTL. Concurrent lookups of one volume share one request. When a refresh of an expired entry
 * fails because the master is unreachable, the stale answer keeps serving (replica lists rarely change, the
 * master being down should not take the HTTP fallback down with it); a failed lookup is retried after a short
 * hold, not on every read. Safe to call from any context; futures complete on the caller's.
 */
public final class MasterClient {

    private static final Logger LOG = LoggerFactory.getLogger(MasterClient.class);

    public static final Duration DEFAULT_TTL = Duration.ofMinutes(1);
    /** A lookup answer is a few hundred bytes; a master (or impostor) sending more is cut off here. */
    static final int MAX_ANSWER_BYTES = 1 << 20;
    private static final long FAILURE_HOLD_NANOS = Duration.ofSeconds(1).toNanos();

    private record Entry(Future<VolumeServers> answer, long fetchedAtNanos) {
    }

    private final Vertx vertx;
    private final WebClient client;
    private final HostPort master;
    private final long ttlNanos;
    private final long timeoutMillis;
    private final LongSupplier clock;
    private final ConcurrentHashMap<Long, Entry> cache = new ConcurrentHashMap<>();

    public MasterClient(Vertx vertx, WebClient client, HostPort master, Duration ttl, Duration timeout) {
        this(vertx, client, master, ttl, timeout, System::nanoTime);
    }

    /** @param clock nanoseconds, monotonic; tests pass a hand-moved one */
    MasterClient(Vertx vertx, WebClient client, HostPort master, Duration ttl, Duration timeout, LongSupplier clock) {
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("master cache TTL must be positive, got " + ttl);
        }
        this.vertx = vertx;
        this.client = client;
        this.master = master;
        this.ttlNanos = ttl.toNanos();
        this.timeoutMillis = Math.max(1, timeout.toMillis());
        this.clock = clock;
    }

    public HostPort master() {
        return master;
    }

    /**
     * Where {@code volumeId} lives. Fails with {@link ReadFailure} NOT_FOUND when the master does not know the
     * volume, UNAVAILABLE when it cannot be asked (and nothing stale is cached), TIMEOUT when it does not answer.
     */
    public Future<VolumeServers> lookup(long volumeId) {
        long now = clock.getAsLong();
        Entry entry = cache.compute(volumeId, (vid, current) ->
                needsFetch(current, now) ? new Entry(fetch(vid, staleOf(current)), now) : current);
        return onCallerContext(entry.answer());
    }

    /** Forgets a volume's locations (e.g. every listed replica failed), so the next lookup asks again. */
    public void invalidate(long volumeId) {
        cache.remove(volumeId);
    }

    private boolean needsFetch(Entry current, long now) {
        if (current == null) {
            return true;
        }
        Future<VolumeServers> answer = current.answer();
        if (!answer.isComplete()) {
            return false;
        }
        long age = now - current.fetchedAtNanos();
        return answer.failed() ? age >= Math.min(FAILURE_HOLD_NANOS, ttlNanos) : age >= ttlNanos;
    }

    private static VolumeServers staleOf(Entry current) {
        return current != null && current.answer().succeeded() ? current.answer().result() : null;
    }

    private Future<VolumeServers> fetch(long volumeId, VolumeServers stale) {
        Future<VolumeServers> answer = client.get(master.port(), master.host(), "/dir/lookup")
                .addQueryParam("volumeId", Long.toString(volumeId))
                .timeout(timeoutMillis)
                .as(new BoundedBody(MAX_ANSWER_BYTES, seen -> ReadFailure.unavailable("master " + master
                        + " answered the lookup of volume " + volumeId + " with more than " + MAX_ANSWER_BYTES
                                + " bytes", null)))
                .send()
                .transform(ar -> ar.succeeded()
                        ? answer(volumeId, ar.result())
                        : Future.failedFuture(unreachable(volumeId, ar.cause())));
        if (stale == null) {
            return answer;
        }
        return answer.recover(e -> {
            if (e instanceof ReadFailure rf && rf.retriable()) {
                LOG.warn("Master " + master + " lookup of volume " + volumeId + " failed (" + e.getMessage()
                        + "); keeping the cached locations");
                return Future.succeededFuture(stale);
            }
            return Future.failedFuture(e);
        });
    }

    private Future<VolumeServers> answer(long volumeId, HttpResponse<Buffer> response) {
        int status = response.statusCode();
        if (status == 404) {
            return Future.failedFuture(ReadFailure.notFound("master " + master + " does not know volume " + volumeId));
        }
        if (status != 200) {
            return Future.failedFuture(ReadFailure.unavailable(
                    "master " + master + " answered " + status + " to the lookup of volume " + volumeId, null));
        }
        try {
            return Future.succeededFuture(VolumeServers.parse(volumeId, response.bodyAsJsonObject()));
        } catch (DecodeException | ClassCastException e) {
            return Future.failedFuture(ReadFailure.unavailable(
                    "master " + master + " answered the lookup of volume " + volumeId + " with malformed JSON", e));
        } catch (IllegalArgumentException e) {
            // {"error":"volume id 7 not found"} comes with 404 from real masters; treat it the same with any status.
            String message = "master " + master + ", volume " + volumeId + ": " + e.getMessage();
            return Future.failedFuture(e.getMessage().contains("not found")
                    ? ReadFailure.notFound(message) : ReadFailure.unavailable(message, e));
        }
    }

    private ReadFailure unreachable(long volumeId, Throwable cause) {
        String message = "master " + master + " lookup of volume " + volumeId + " failed: " + cause.getMessage();
        return cause instanceof java.util.concurrent.TimeoutException
                || cause.getClass().getSimpleName().contains("Timeout")
                ? new ReadFailure(ReadFailure.Kind.TIMEOUT, message, cause)
                : ReadFailure.unavailable(message, cause);
    }

    private <T> Future<T> onCallerContext(Future<T> shared) {
        return VertxInternals.onCallerContext(vertx, shared);
    }
}
