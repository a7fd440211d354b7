package org.seaweedfs.rdma.agent;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Mappings that are no longer advertised (a tail re-mapped larger, an epoch replaced, a volume removed), released in
 * two steps: deregistered after the grace, so a get a reader started before it learned of the change can finish; and
 * only after a second grace dropped (unmapped when the garbage collector frees the buffer), because a get emulated in
 * software over TCP or shared memory is served by the agent's UCX worker copying from the raw address, without checking
 * the remote key: memory still mapped there gives the file's own bytes, never a crash. Confined to the agent's context.
 */
final class RetiredMappings {

    private final Vertx vertx;
    private final UcxWorkerVerticle ucx;
    private final long graceMs;
    /** Registered, waiting for the first grace. */
    private final Set<MappedSegment> registered = new LinkedHashSet<>();
    /** Deregistered, still mapped for the second grace. */
    private final Set<MappedSegment> mapped = new LinkedHashSet<>();
    private final Set<Long> timers = new LinkedHashSet<>();

    RetiredMappings(Vertx vertx, UcxWorkerVerticle ucx, long graceMs) {
        this.vertx = vertx;
        this.ucx = ucx;
        this.graceMs = graceMs;
    }

    void retire(Collection<MappedSegment> segments) {
        if (segments.isEmpty()) {
            return;
        }
        List<MappedSegment> batch = List.copyOf(segments);
        if (graceMs == 0) {
            batch.forEach(s -> ucx.deregister(s.region()));
            return;
        }
        registered.addAll(batch);
        later(() -> {
            batch.forEach(registered::remove);
            batch.forEach(s -> ucx.deregister(s.region()));
            mapped.addAll(batch);
            later(() -> batch.forEach(mapped::remove));
        });
    }

    /** Mappings retired but still registered. */
    int pending() {
        return registered.size();
    }

    /** On stop: deregisters everything at once (no reader is served any more) and drops all references. */
    Future<Void> releaseAll() {
        timers.forEach(vertx::cancelTimer);
        timers.clear();
        List<Future<Void>> done = new ArrayList<>();
        registered.forEach(s -> done.add(ucx.deregister(s.region())));
        registered.clear();
        mapped.clear();
        return Future.join(done).<Void>mapEmpty().otherwiseEmpty();
    }

    private void later(Runnable action) {
        long[] id = new long[1];
        id[0] = vertx.setTimer(graceMs, t -> {
            timers.remove(id[0]);
            action.run();
        });
        timers.add(id[0]);
    }
}
