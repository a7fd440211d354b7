package org.seaweedfs.rdma.sidecar.read;

import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.seaweedfs.rdma.protocol.Segment;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleSlice;
import org.seaweedfs.rdma.sidecar.ReadPath;
import org.seaweedfs.rdma.sidecar.connection.AgentRoute;
import org.seaweedfs.rdma.sidecar.connection.RemoteVolume;
import org.seaweedfs.rdma.sidecar.locations.NeedleLocation;
import org.seaweedfs.rdma.sidecar.memory.PooledBuffer;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.ucx.GetBatch;
import org.seaweedfs.rdma.ucx.PeerView;
import org.seaweedfs.rdma.ucx.PeerViews;
import org.seaweedfs.rdma.ucx.UcxChannel;
import org.seaweedfs.rdma.ucx.UcxRemoteKey;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.NeedleLayout;

/**
 * One batch of RDMA reads through one agent: every needle whose location is cached and whose record fits one pooled
 * buffer within one segment is read with one get, all posted together ({@link UcxChannel#getAll}: one flush), then
 * each verified as a single read verifies it. Anything else goes to the single-read path, which then answers for that
 * needle alone: needles it cannot post, all of them when the gets fail or do not land within the give-up time (their
 * buffers return when they land), and any whose record does not check (the single read reads it again and answers
 * exactly as it would have: a miss, a moved or corrupt record, a wrong cookie). A record in a same-host agent's
 * shared memory mapped here is verified where it lies instead ({@link PeerView}): no get, no buffer, no copy; the
 * batch's views are handed over together, inside the call or, past the event loop's budget, by the lane's next
 * polling task. Confined to its caller's context.
 */
final class BatchFetch {

    private final Vertx vertx;
    private final ReadGate gate;
    private final RegisteredBufferPool pool;
    private final RemoteVolume volume;
    private final List<FileId> fids;
    private final long maxPlainBytes;
    private final IntFunction<Future<NeedleContent>> single;
    private final Context context;
    // The posted reads, 0 .. posted-1: the fid's index, its buffer, record and promise.
    private final int[] index;
    private final PooledBuffer[] buffers;
    private final long[] offsets;
    private final long[] sizes;
    private final int[] lengths;
    private final Promise<NeedleContent>[] promises;
    private int posted;
    /** The remote address of the record {@link #postable} found last, and the segment it lies in. */
    private long remoteAddress;
    private Segment segment;
    private long timer = -1;
    private boolean handedOn;
    /**
     * Completes when the lane hands this batch's first view over, when it does so after this call (past the event
     * loop's budget of completions inside their call): the batch's other views complete then too. Null: at once.
     */
    private Promise<Void> viewsLater;
    /** The first view's read: when the lane handed it over inside this call, else completed when it does. */
    private Future<NeedleContent> firstViewRead;
    private Promise<NeedleContent> firstViewLater;
    /** The further views' lane and key copy, for the key {@link #nextView} saw last (null views: none there). */
    private Segment viewsSegment; // the segment views were found for
    private PeerViews views;

    @SuppressWarnings("unchecked")
    BatchFetch(Vertx vertx, ReadGate gate, RegisteredBufferPool pool, AgentRoute route, List<FileId> fids,
               long maxPlainBytes, IntFunction<Future<NeedleContent>> single) {
        this.vertx = vertx;
        this.gate = gate;
        this.pool = pool;
        this.volume = route.volume();
        this.fids = fids;
        this.maxPlainBytes = maxPlainBytes;
        this.single = single;
        this.context = VertxInternals.callerContext(vertx);
        int n = fids.size();
        index = new int[n];
        buffers = new PooledBuffer[n];
        offsets = new long[n];
        sizes = new long[n];
        lengths = new int[n];
        promises = new Promise[n];
    }

    RoutedNeedleSource.Batch start(long giveUpMillis) {
        @SuppressWarnings("unchecked")
        Future<NeedleContent>[] reads = new Future[fids.size()];
        GetBatch gets = null; // made at the first get: none when every record is read where it lies
        UcxChannel channel = null;
        for (int i = 0; i < reads.length; i++) {
            UcxRemoteKey key = postable(fids.get(i), channel);
            // Once the batch took a view, its further views complete with that one.
            Future<NeedleContent> view = key == null ? null
                    : firstViewRead != null || viewsLater != null ? nextView(i, key) : firstView(i, key);
            if (view != null) {
                reads[i] = view;
                continue;
            }
            PooledBuffer buffer = key == null ? null : pool.acquire(lengths[posted]);
            if (buffer == null) {
                reads[i] = single.apply(i);
                continue;
            }
            channel = key.channel();
            if (gets == null) {
                gets = new GetBatch(reads.length - i);
            }
            gets.add(remoteAddress, key, buffer.address(), lengths[posted]);
            index[posted] = i;
            buffers[posted] = buffer;
            promises[posted] = VertxInternals.promise(context);
            reads[i] = promises[posted].future();
            posted++;
        }
        if (posted == 0) {
            return new RoutedNeedleSource.Batch(Arrays.asList(reads), null);
        }
        Future<Void> landed = channel.getAll(gets);
        if (!landed.isComplete()) {
            timer = vertx.setTimer(Math.max(1, giveUpMillis), t -> giveUp());
        }
        landed.onComplete(this::landed);
        return new RoutedNeedleSource.Batch(Arrays.asList(reads), landed);
    }

    /**
     * The key to get the fid's record with, its location noted at {@link #posted}; null when this batch cannot read it
     * with one get on {@code channel} (null: any).
     */
    private UcxRemoteKey postable(FileId fid, UcxChannel channel) {
        NeedleLocation at = volume.locations().find(fid.key());
        if (at == null || at.size() > gate.options().maxNeedleBytes()) {
            return null;
        }
        long used = NeedleLayout.usedLength(at.size(), volume.version());
        Segment segment = used > pool.largeBufferBytes() ? null : volume.info().segmentAt(at.offset());
        if (segment == null || at.offset() + used > segment.end()) {
            return null;
        }
        UcxRemoteKey key = volume.keyOf(segment);
        if (key == null || !key.isValid() || channel != null && key.channel() != channel) {
            return null;
        }
        this.segment = segment;
        remoteAddress = segment.addressOf(at.offset());
        offsets[posted] = at.offset();
        sizes[posted] = at.size();
        lengths[posted] = (int) used;
        return key;
    }

    private void landed(AsyncResult<Void> gets) {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
        for (int k = 0; k < posted; k++) {
            if (handedOn || gets.failed()) {
                buffers[k].release();
                if (!handedOn) {
                    handOn(k);
                }
            } else {
                verify(k);
            }
        }
    }

    private void verify(int k) {
        PooledBuffer buffer = buffers[k];
        Future<NeedleContent> read = checked(index[k], sizes[k], offsets[k], buffer.buffer().limit(lengths[k]),
                buffer::release);
        if (read == null) {
            handOn(k);
        } else {
            read.onComplete(promises[k]);
        }
    }

    /**
     * The batch's first view (the needle {@code i}, noted at {@link #posted}): the lane hands it over inside this call
     * while the event loop's budget lasts, else by its next polling task, and the batch's other views wait for it, so
     * a caller chaining batches from their completions lets the loop go on and still takes no get, buffer or copy.
     * Null when the record is not mapped here.
     */
    private Future<NeedleContent> firstView(int i, UcxRemoteKey key) {
        long size = sizes[posted];
        long offset = offsets[posted];
        boolean mapped = key.channel().view(segment.address(), segment.length(), key, volume.fileOf(segment),
                remoteAddress, lengths[posted], view -> {
                    Future<NeedleContent> read = whereItLies(i, size, offset, view);
                    if (viewsLater == null) { // inside this call
                        firstViewRead = read;
                    } else {
                        read.onComplete(firstViewLater);
                        viewsLater.complete();
                    }
                });
        if (!mapped) {
            return null;
        }
        if (firstViewRead != null) {
            return firstViewRead;
        }
        viewsLater = Promise.promise();
        firstViewLater = VertxInternals.promise(context);
        return firstViewLater.future();
    }

    /** A further view of the batch (the needle {@code i}, noted at {@link #posted}), handed over with the first. */
    private Future<NeedleContent> nextView(int i, UcxRemoteKey key) {
        if (viewsSegment != segment) { // the lane and its mapping found once per segment, not once per needle
            viewsSegment = segment;
            views = key.channel().views(segment.address(), segment.length(), key, volume.fileOf(segment));
        }
        PeerView view = views == null ? null : views.view(remoteAddress, lengths[posted]);
        if (view == null) {
            return null;
        }
        Future<NeedleContent> read = whereItLies(i, sizes[posted], offsets[posted], view);
        return viewsLater == null ? read : viewsLater.future().transform(v -> read);
    }

    /** The needle {@code i} checked where it lies; the single path's when it does not. */
    private Future<NeedleContent> whereItLies(int i, long size, long offset, PeerView view) {
        Future<NeedleContent> read = checked(i, size, offset, view.bytes(), view::release);
        return read != null ? read : single.apply(i);
    }

    /**
     * The record of needle {@code i} ({@code size} bytes of data at {@code offset} of its volume), verified in
     * {@code bytes} as a single read verifies it (the plain bytes of a compressed one); null, its memory released,
     * when it does not check.
     */
    private Future<NeedleContent> checked(int i, long size, long offset, ByteBuffer bytes, Runnable release) {
        VerifiedRecord record;
        try {
            record = VerifiedRecord.check(fids.get(i), size, volume.version(), List.of(bytes),
                    System::currentTimeMillis, ReadPath.RDMA.wire, volume.where(), offset);
        } catch (RuntimeException e) {
            release.run();
            return null;
        }
        gate.counters().servedInBatch(record.stat().size());
        NeedleContent whole = new VerifiedNeedle(record, release);
        return record.stat().compressed() ? NeedleSlice.ofPlain(vertx, whole, 0, -1, maxPlainBytes)
                : Future.succeededFuture(whole);
    }

    /** The gets did not land in time: each needle is the single path's now; the buffers return when they land. */
    private void giveUp() {
        timer = -1;
        handedOn = true;
        for (int k = 0; k < posted; k++) {
            handOn(k);
        }
    }

    private void handOn(int k) {
        Future<NeedleContent> read;
        try {
            read = single.apply(index[k]);
        } catch (RuntimeException e) {
            read = Future.failedFuture(e);
        }
        read.onComplete(promises[k]);
    }
}
