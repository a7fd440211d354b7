package org.seaweedfs.rdma.sidecar;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.seaweedfs.rdma.volume.FileId;

/**
 * The read path as every face sees it (HTTP, the event bus, the typed client): each read takes one slot of the
 * sidecar's {@link Admission} ({@code sidecar.maxInFlightReads}) when it arrives, whatever paths it then tries, and
 * gives it back when its answer is ready. A read beyond the bound fails at once, UNAVAILABLE with Retry-After,
 * never queued. What answers being sent still hold is bounded by the buffer pool.
 */
public final class AdmittedSource implements NeedleSource {

    /** Seconds a refused client is told to wait: the slots free within a read's time. */
    private static final int RETRY_AFTER_SECONDS = 1;

    private final Vertx vertx;
    private final NeedleSource source;
    private final Admission admission;

    public AdmittedSource(Vertx vertx, NeedleSource source, Admission admission) {
        this.vertx = vertx;
        this.source = source;
        this.admission = admission;
    }

    @Override
    public Future<NeedleStat> stat(FileId fid) {
        return admitted(() -> source.stat(fid));
    }

    @Override
    public Future<NeedleContent> read(FileId fid) {
        return admitted(() -> source.read(fid));
    }

    @Override
    public Future<NeedleContent> read(FileId fid, String volumeServerHint) {
        return admitted(() -> source.read(fid, volumeServerHint));
    }

    @Override
    public Future<NeedleContent> readSlice(FileId fid, String volumeServerHint, long offset, long length,
                                           long maxPlainBytes) {
        return admitted(() -> source.readSlice(fid, volumeServerHint, offset, length, maxPlainBytes));
    }

    /**
     * The reads of many needles take their slots at once, one per needle, in order: when fewer are free, the needles
     * past them fail as reads beyond the bound would (as if read one after the other). Each slot returns as its
     * needle's answer is ready.
     */
    @Override
    public List<Future<NeedleContent>> readMany(List<FileId> fids, long maxPlainBytes) {
        int admitted = admission.tryAcquireUpTo(fids.size());
        List<Future<NeedleContent>> reads;
        try {
            reads = admitted == 0 ? List.of()
                    : source.readMany(admitted == fids.size() ? fids : fids.subList(0, admitted), maxPlainBytes);
        } catch (RuntimeException e) {
            admission.release(admitted);
            throw e;
        }
        for (Future<NeedleContent> read : reads) {
            read.onComplete(ar -> admission.release());
        }
        if (admitted == fids.size()) {
            return reads;
        }
        List<Future<NeedleContent>> all = new ArrayList<>(fids.size());
        all.addAll(reads);
        while (all.size() < fids.size()) {
            all.add(refused());
        }
        return all;
    }

    private <T> Future<T> refused() {
        return VertxInternals.onCallerContext(vertx, Future.failedFuture(ReadFailure.overloaded(
                "too many reads in flight (sidecar.maxInFlightReads=" + admission.limit() + ")",
                RETRY_AFTER_SECONDS)));
    }

    private <T> Future<T> admitted(Supplier<Future<T>> read) {
        if (!admission.tryAcquire()) {
            return refused();
        }
        Future<T> answer;
        try {
            answer = read.get();
        } catch (RuntimeException e) {
            admission.release();
            throw e;
        }
        answer.onComplete(ar -> admission.release());
        return answer;
    }
}
