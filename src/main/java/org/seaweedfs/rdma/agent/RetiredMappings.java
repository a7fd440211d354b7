package org.seaweedfs.rdma.agent;

import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Segments that are no longer advertised (a tail replaced by a larger one, an epoch replaced, a volume removed),
 * released late. A get emulated in software over TCP or shared memory is served by the agent's UCX worker copying
 * from the raw address, without checking the remote key, so the memory behind an address must stay valid longer
 * than any reader may hold it. A mapping is deregistered after the grace, so a get a reader started before it learned
 * of the change can finish, and only after a second grace dropped (unmapped when the garbage collector frees the
 * buffer): memory still mapped there gives the file's own bytes, never a crash. A UCX copy cannot be deregistered
 * without being freed, so it stays registered for both graces and is freed after the second. Confined to the
 * agent's context.
 */
final class RetiredMappings {

    private final Vertx vertx;
    private final SegmentMemory memory;
    private final long graceMs;
    /** Registered, waiting for their grace(s). */
    private final Set<ServedSegment> registered = new LinkedHashSet<>();
    /** Mappings deregistered, still mapped for the second grace. */
    private final Set<ServedSegment> mapped = new LinkedHashSet<>();
    private final Set<Long> timers = new LinkedHashSet<>();

    RetiredMappings(Vertx vertx, SegmentMemory memory, long graceMs) {
        this.vertx = vertx;
        this.memory = memory;
        this.graceMs = graceMs;
    }

    void retire(Collection<ServedSegment> segments) {
        if (segments.isEmpty()) {
            return;
        }
        List<ServedSegment> batch = List.copyOf(segments);
        if (graceMs == 0) {
            batch.forEach(memory::release);
            return;
        }
        registered.addAll(batch);
        later(() -> {
            for (ServedSegment s : batch) {
                if (!s.isCopy()) {
                    registered.remove(s);
                    memory.release(s);
                    mapped.add(s);
                }
            }
            later(() -> {
                for (ServedSegment s : batch) {
                    if (s.isCopy()) {
                        registered.remove(s);
                        memory.release(s);
                    } else {
                        mapped.remove(s);
                    }
                }
            });
        });
    }

    /** Segments retired but still registered. */
    int pending() {
        return registered.size();
    }

    /** On stop: releases everything at once (no reader is served any more) and drops all references. */
    Future<Void> releaseAll() {
        timers.forEach(vertx::cancelTimer);
        timers.clear();
        List<Future<Void>> done = new ArrayList<>();
        registered.forEach(s -> done.add(memory.release(s)));
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
