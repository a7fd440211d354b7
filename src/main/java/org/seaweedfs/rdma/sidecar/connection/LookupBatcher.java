package org.seaweedfs.rdma.sidecar.connection;

import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.seaweedfs.rdma.protocol.LookupBatch;
import org.seaweedfs.rdma.protocol.LookupBatchResult;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.sidecar.locations.LocationCache;
import org.seaweedfs.rdma.sidecar.locations.NeedleLocation;

/**
 * One connection's lookups: misses from any thread queue here and go out together as {@link LookupBatch} frames
 * once per turn of the connection's home event loop (a turn with more than a frame's worth sends several). A miss
 * for a needle already being looked up joins that lookup instead of sending another. Found locations are cached
 * as the reply is handled on the home context, in frame order with the agent's index pushes.
 */
final class LookupBatcher {

    /** One needle asked for. */
    private record Wanted(VolumeLocations volume, long key, int cookie) {
    }

    /** A queued or sent lookup and its shared outcome. */
    private static final class Waiting {
        final Wanted wanted;
        final Promise<LookupAnswer> promise = Promise.promise();
        long changesAtSend;

        Waiting(Wanted wanted) {
            this.wanted = wanted;
        }
    }

    private final Vertx vertx;
    private final Context home;
    private final RequestTable requests;
    private final LocationCache cache;
    private final int maxBatch;
    private final Map<Wanted, Waiting> inFlight = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    private List<Waiting> queued = new ArrayList<>();
    private boolean flushScheduled;

    /** @param maxBatch ids per frame (at most the codec's {@code maxLookupsPerFrame()}) */
    LookupBatcher(Vertx vertx, Context home, RequestTable requests, LocationCache cache, int maxBatch) {
        if (maxBatch < 1) {
            throw new IllegalArgumentException("a lookup batch holds at least one id, got " + maxBatch);
        }
        this.vertx = vertx;
        this.home = home;
        this.requests = requests;
        this.cache = cache;
        this.maxBatch = maxBatch;
    }

    /** Any thread; completes on the caller's context. */
    Future<LookupAnswer> lookup(VolumeLocations volume, FileId fid) {
        Wanted wanted = new Wanted(volume, fid.key(), fid.cookie());
        Waiting mine = new Waiting(wanted);
        Waiting joined = inFlight.putIfAbsent(wanted, mine);
        if (joined != null) {
            cache.lookupShared();
            return VertxInternals.onCallerContext(vertx, joined.promise.future());
        }
        boolean schedule;
        synchronized (lock) {
            queued.add(mine);
            schedule = !flushScheduled;
            flushScheduled = true;
        }
        if (schedule) {
            home.runOnContext(v -> flush());
        }
        return VertxInternals.onCallerContext(vertx, mine.promise.future());
    }

    /** Home context: sends everything queued, {@code maxBatch} ids a frame. */
    private void flush() {
        List<Waiting> all;
        synchronized (lock) {
            all = queued;
            queued = new ArrayList<>();
            flushScheduled = false;
        }
        for (int from = 0; from < all.size(); from += maxBatch) {
            send(all.subList(from, Math.min(all.size(), from + maxBatch)));
        }
    }

    private void send(List<Waiting> batch) {
        int n = batch.size();
        long[] volumeIds = new long[n];
        long[] keys = new long[n];
        int[] cookies = new int[n];
        for (int i = 0; i < n; i++) {
            Waiting w = batch.get(i);
            w.changesAtSend = w.wanted.volume().changes();
            volumeIds[i] = w.wanted.volume().volumeId();
            keys[i] = w.wanted.key();
            cookies[i] = w.wanted.cookie();
        }
        byte[] ids = LookupBatch.pack(volumeIds, keys, cookies, n);
        cache.lookupsSent(n);
        requests.request(id -> new LookupBatch(id, ids), LookupBatchResult.class, "LookupBatch")
                .onComplete(ar -> answer(batch, ar));
    }

    /** Home context (the request was made there): caches what was found, then completes every waiter. */
    private void answer(List<Waiting> batch, AsyncResult<LookupBatchResult> ar) {
        if (ar.succeeded() && ar.result().count() != batch.size()) {
            ar = Future.failedFuture(new IllegalStateException("agent answered " + ar.result().count()
                    + " results for a lookup of " + batch.size() + " ids"));
        }
        for (int i = 0; i < batch.size(); i++) {
            Waiting w = batch.get(i);
            if (ar.failed()) {
                inFlight.remove(w.wanted, w);
                w.promise.fail(ar.cause());
                continue;
            }
            LookupBatchResult result = ar.result();
            VolumeLocations volume = w.wanted.volume();
            LookupAnswer answer = switch (result.status(i)) {
                case LookupBatchResult.FOUND -> new LookupAnswer(LookupAnswer.Status.FOUND, result.epoch(i),
                        new NeedleLocation(result.offset(i), result.size(i)));
                case LookupBatchResult.NOT_FOUND ->
                        new LookupAnswer(LookupAnswer.Status.NOT_FOUND, result.epoch(i), null);
                default -> new LookupAnswer(LookupAnswer.Status.UNKNOWN_VOLUME, 0, null);
            };
            if (answer.status() == LookupAnswer.Status.FOUND && answer.epoch() == volume.epoch()) {
                volume.remember(w.wanted.key(), answer.location(), w.changesAtSend);
            }
            inFlight.remove(w.wanted, w); // after the cache has it: a later miss finds it there
            w.promise.complete(answer);
        }
    }
}
