package org.seaweedfs.rdma.ucx;

import io.netty.channel.EventLoop;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.seaweedfs.rdma.polling.PollingPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The UCX worker of one Vert.x event loop, on the verticle's shared context: created, used, progressed and closed only
 * on that event loop's thread, which is its owner thread. It holds one {@link EventLoopLane} per channel that issued
 * gets here.
 *
 * <p>When it progresses, polls and sleeps is {@link PollingPolicy}'s to decide. A get that completes within its issuing
 * call (a shared-memory get of UCX memory copies at once) completes synchronously, up to the policy's budget between
 * two polling tasks; past that budget, gets are issued implicit and the next polling task's flush completes them
 * together (see {@link EventLoopLane}). Otherwise the worker polls with tasks on its event loop, interleaved with the
 * loop's I/O, for the idle-poll time after its last event; gets still in flight past it (a peer slow to answer) are
 * polled for by timer, as an event loop cannot wait on UCX's file descriptor; and now and then while lanes exist, for
 * wire-up, keepalive and error events. UCX callbacks only record outcomes; completions, key closes and endpoint
 * closes happen after {@code progress()}.
 */
final class LaneWorker {

    private static final Logger log = LoggerFactory.getLogger(LaneWorker.class);

    private final UcxWorkerVerticle owner;
    private final EventLoop eventLoop;
    private final String name;
    private final UcpWorker worker; // null when it could not be made: this loop uses the owner path
    private final PollingPolicy idle;
    private final Map<UcxChannel, EventLoopLane> lanes = new HashMap<>();
    private final Set<UcxChannel> refused = new HashSet<>(); // channels whose lane could not be made here
    private final ArrayDeque<LaneGetOp> completed = new ArrayDeque<>();
    private final ArrayDeque<DeferredView> deferredViews = new ArrayDeque<>(); // past the budget: for the next poll
    private final ArrayList<EventLoopLane> failedLanes = new ArrayList<>();
    private final ArrayList<EventLoopLane> toFlush = new ArrayList<>(); // lanes with implicit gets not yet flushed
    private final ArrayList<EventLoopLane> draining = new ArrayList<>(); // no new gets, waiting for the ones in flight
    private final ArrayList<UcpRequest> closing = new ArrayList<>();
    private final Runnable pollTask = this::poll;
    private final Runnable delayedPollTask = this::delayedPoll;
    private ScheduledFuture<?> delayedPoll; // a timer poll while gets wait for a slow peer
    private int pending; // gets issued and not yet delivered
    private boolean pollScheduled;
    private int syncBudget; // completions inside their call left until the next polling task
    private ScheduledFuture<?> idleTimer;
    private boolean closed;

    private LaneWorker(UcxWorkerVerticle owner, EventLoop eventLoop, String name, UcpWorker worker) {
        this.owner = owner;
        this.eventLoop = eventLoop;
        this.name = name;
        this.worker = worker;
        this.idle = new PollingPolicy(owner.settings().idlePollMicros());
        this.syncBudget = idle.syncCompletions();
    }

    /** On the event loop: a worker for it, or a disabled one (owner path) when UCX refuses; never throws. */
    static LaneWorker open(UcxWorkerVerticle owner, EventLoop eventLoop, UcpContext context) {
        String name = "ucx lanes of " + Thread.currentThread().getName();
        try {
            LaneWorker worker = new LaneWorker(owner, eventLoop, name, context.newWorker(new UcpWorkerParams()));
            log.info("UCX gets issued on " + Thread.currentThread().getName() + " now run on its own UCX worker"
                    + " (event-loop lanes)");
            return worker;
        } catch (RuntimeException e) {
            log.warn("No UCX event-loop lanes on " + Thread.currentThread().getName()
                    + " (its gets go through the UCX owner thread): " + e.getMessage());
            return new LaneWorker(owner, eventLoop, name, null);
        }
    }

    /**
     * On the event loop, on {@code context}: issues the get on the channel's lane, or returns null when this loop
     * cannot serve it (no worker, closed, or no lane to the channel's peer) and the owner path must.
     */
    Future<Void> get(Context context, UcxChannel channel, long remoteAddress, UcxRemoteKey key,
                     long localAddress, long length) {
        EventLoopLane lane = laneFor(channel);
        if (lane == null) {
            return null;
        }
        // Past the budget, a completion waits for the polling task anyway: its flush completes the get with the
        // others issued meanwhile, which spares each of them a request and a callback.
        boolean implicit = syncBudget == 0;
        LaneGetOp op = lane.issue(context, remoteAddress, key, localAddress, length, implicit);
        pending++;
        idle.event(System.nanoTime());
        if (implicit) {
            if (lane.unflushedGets() == 1) { // the lane's first since its last flush
                toFlush.add(lane);
            }
        } else {
            for (int i = 0; !op.isDone() && i < idle.progressCallsOnIssue(); i++) {
                progressOnce();
            }
        }
        return handOver(op);
    }

    /**
     * After issuing: the op's outcome goes to its caller now when it completed here and the sync budget lasts, else
     * with the polling task. Only the caller's own op completes here: other completions wait for the polling task, so
     * no other continuation runs inside the issuing call.
     */
    private Future<Void> handOver(LaneGetOp op) {
        if (!failedLanes.isEmpty()) {
            retireFailedLanes();
        }
        boolean sync = op.isDone() && syncBudget > 0 && completed.removeLastOccurrence(op);
        if (sync) {
            syncBudget--;
            settle(op);
        }
        if (pending > 0 || sync || idle.windowNanos() > 0) {
            schedulePoll(); // after an op that completed here: to restore the budget and keep the loop awake
        }
        if (sync) {
            op.handle(null);
        }
        return op.future();
    }

    /**
     * On the event loop, on {@code context}: posts the batch's gets implicit on the channel's lane and flushes the lane
     * at once, so one flush completes them all; null when this loop cannot serve it (the owner path must). A batch
     * that completes within this call (shared memory) is handed over before it returns while the sync budget lasts,
     * as one completion: callers chaining batches still let the event loop serve its other work.
     */
    Future<Void> getAll(Context context, UcxChannel channel, GetBatch batch) {
        EventLoopLane lane = laneFor(channel);
        if (lane == null) {
            return null;
        }
        LaneGetOp op = lane.issueAll(context, batch);
        pending++;
        idle.event(System.nanoTime());
        if (!op.isDone()) {
            lane.flush();
        }
        for (int i = 0; !op.isDone() && i < idle.progressCallsOnIssue(); i++) {
            progressOnce();
        }
        return handOver(op);
    }

    /**
     * On the event loop: the channel's peer memory at {@code remoteAddress} where it lies, when it is mapped here
     * ({@link PeerView}); null when it is not, or this loop cannot reach the peer (the caller then gets the bytes).
     * A view completes its read inside the call, so it takes one of the sync budget, as a get completing here does;
     * the further views of one call ({@code sameCall}, a batch) take none: they complete with the first, as one.
     */
    PeerView view(UcxChannel channel, UcxRemoteKey key, PeerFile file, long regionAddress, long regionLength,
                  long remoteAddress, int length, boolean sameCall) {
        if (syncBudget == 0 && !sameCall) {
            // Past the budget the get waits for the polling task, so a caller chaining reads from their completions
            // lets the loop go on.
            return null;
        }
        EventLoopLane lane = laneFor(channel);
        PeerView view = lane == null ? null : lane.view(key, file, regionAddress, regionLength, remoteAddress, length);
        if (view != null && !sameCall) {
            syncBudget--;
            idle.event(System.nanoTime());
            schedulePoll(); // restores the budget
        }
        return view;
    }

    /** On the event loop: views of the channel's peer region under {@code key} for one call ({@link PeerViews}). */
    PeerViews views(UcxChannel channel, UcxRemoteKey key, PeerFile file, long regionAddress, long regionLength) {
        EventLoopLane lane = laneFor(channel);
        return lane == null ? null : lane.views(key, file, regionAddress, regionLength);
    }

    /**
     * On the event loop, on {@code context}: the channel's peer memory at {@code remoteAddress} where it lies, when it
     * is mapped here ({@link PeerView}), handed to {@code use}: within the sync budget now, as a get completing here
     * would be; past it by the next polling task, on {@code context}, so a caller chaining reads from their
     * completions lets the loop go on, and the read still takes no get, buffer or copy. False when the memory is not
     * mapped here or this loop cannot reach the peer (the caller then gets the bytes); {@code use} is not called.
     */
    boolean view(Context context, UcxChannel channel, UcxRemoteKey key, PeerFile file, long regionAddress,
                 long regionLength, long remoteAddress, int length, Handler<PeerView> use) {
        EventLoopLane lane = laneFor(channel);
        PeerView view = lane == null ? null : lane.view(key, file, regionAddress, regionLength, remoteAddress, length);
        if (view == null) {
            return false;
        }
        idle.event(System.nanoTime());
        schedulePoll(); // restores the budget, or hands the view over
        if (syncBudget > 0) {
            syncBudget--;
            use.handle(view);
        } else {
            deferredViews.add(new DeferredView(context, view, use));
        }
        return true;
    }

    /** A view past the sync budget, handed over by the next polling task. */
    private record DeferredView(Context context, PeerView view, Handler<PeerView> use) implements Handler<Void> {
        @Override
        public void handle(Void nothing) {
            use.handle(view);
        }
    }

    /** Whether the caller runs on this worker's event loop. */
    boolean runsHere() {
        return eventLoop.inEventLoop();
    }

    /** Once closing starts, key copies still held by views are left to the worker's end, never closed after it. */
    boolean isClosed() {
        return closed;
    }

    /** Inside progress (or the issuing call): a get finished; delivered after the pass. */
    void completed(LaneGetOp op) {
        completed.add(op);
    }

    /** Inside progress: a lane's endpoint failed; it is retired after the pass. */
    void laneFailed(EventLoopLane lane) {
        failedLanes.add(lane);
    }

    /** Any thread: runs {@code task} on this worker's event loop; false when the loop no longer runs tasks. */
    boolean execute(Runnable task) {
        try {
            eventLoop.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** Event loop: the channel closed; its lane takes no more gets and closes once those in flight are done. */
    void channelClosed(UcxChannel channel, UcxTransportException cause) {
        refused.remove(channel);
        EventLoopLane lane = lanes.remove(channel);
        if (lane != null) {
            drain(lane, cause, PollingPolicy.CLOSE_TIMEOUT_MS / 2);
        }
    }

    private void drain(EventLoopLane lane, UcxTransportException cause, long timeoutMs) {
        lane.drain(cause, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs));
        draining.add(lane);
        closeDrainedLanes();
    }

    /** Closes draining lanes whose gets are done (or whose time is up: a forced close fails what is left). */
    private void closeDrainedLanes() {
        if (draining.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        for (int i = draining.size() - 1; i >= 0; i--) {
            EventLoopLane lane = draining.get(i);
            if (lane.drained(now)) {
                draining.remove(i);
                retire(lane, lane.drainCause());
            }
        }
    }

    /** Event loop: the key's last holder released it; the lane's copy closes once the lane's gets with it are done. */
    void keyReleased(UcxRemoteKey key) {
        EventLoopLane lane = lanes.get(key.channel());
        if (lane != null) {
            lane.keyReleased(key);
        }
    }

    /**
     * Event loop: every lane takes no more gets; once their gets in flight are done (those left after
     * {@code timeoutMs} fail) their endpoints are closed, progressed until closed, and then the worker.
     */
    void close(UcxTransportException cause, long timeoutMs, Promise<Boolean> done) {
        if (closed) {
            done.tryComplete(true);
            return;
        }
        closed = true;
        cancelDelayedPoll();
        if (idleTimer != null) {
            idleTimer.cancel(false);
            idleTimer = null;
        }
        // half the time for the gets in flight, the rest for closing the endpoints and the worker
        for (EventLoopLane lane : lanes.values()) {
            drain(lane, cause, timeoutMs / 2);
        }
        lanes.clear();
        refused.clear();
        deliverQueued();
        finishClose(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs), done);
    }

    private void finishClose(long deadline, Promise<Boolean> done) {
        if (worker == null) {
            done.tryComplete(true);
            return;
        }
        progressPass();
        closing.removeIf(UcpRequest::isCompleted);
        boolean timedOut = System.nanoTime() - deadline > 0;
        boolean busy = !closing.isEmpty() || !draining.isEmpty();
        if (busy && !timedOut && execute(() -> finishClose(deadline, done))) {
            return; // a task per pass: the event loop keeps serving its other work meanwhile
        }
        if (busy) {
            log.warn((closing.size() + draining.size()) + " UCX lane endpoint(s) did not close in time on " + name
                    + "; destroying the worker");
            for (EventLoopLane lane : draining) {
                retire(lane, lane.drainCause()); // forced: what is still in flight fails now
            }
            draining.clear();
            deliverQueued();
        }
        closing.clear();
        worker.close();
        done.tryComplete(true);
    }

    private EventLoopLane laneFor(UcxChannel channel) {
        EventLoopLane lane = lanes.get(channel);
        if (lane != null || closed || worker == null || refused.contains(channel)) {
            return lane;
        }
        try {
            lane = EventLoopLane.open(this, channel, worker, owner.settings().peerErrorHandling());
        } catch (RuntimeException e) {
            refused.add(channel);
            log.warn("No UCX event-loop lane to " + channel + " on " + name
                    + " (its gets go through the UCX owner thread): " + e.getMessage());
            return null;
        }
        lanes.put(channel, lane);
        owner.metrics().laneOpened();
        if (idleTimer == null) {
            idleTimer =
                    eventLoop.scheduleAtFixedRate(this::idle, idle.housekeepingMillis(), idle.housekeepingMillis(),
                    TimeUnit.MILLISECONDS);
        }
        // The channel may have closed after the caller checked it, before this loop's worker was known to the
        // registry (so no close reached it): the owner path then fails the get with the channel's reason.
        if (!channel.isOpen()) {
            channelClosed(channel, channel.unusableReason());
            return null;
        }
        return lane;
    }

    /** The polling task, queued: it runs after the loop's tasks queued so far. */
    private void schedulePoll() {
        if (!pollScheduled && execute(pollTask)) {
            pollScheduled = true;
        }
    }

    /**
     * The polling task again while the thread polls, due at once: scheduled rather than queued, as the loop runs a
     * queued task that queues itself again in the same pass, its sockets unread, but takes scheduled tasks once per
     * pass, after a non-blocking look at its sockets.
     */
    private void pollAgain() {
        try {
            eventLoop.schedule(pollTask, 0, TimeUnit.NANOSECONDS);
            pollScheduled = true;
        } catch (RejectedExecutionException e) {
            // the event loop is shutting down; close() fails what is left
        }
    }

    /** A task on the event loop while gets are in flight: progress, then completions on their contexts. */
    private void poll() {
        pollScheduled = false;
        cancelDelayedPoll();
        syncBudget = idle.syncCompletions();
        if (closed) {
            return;
        }
        boolean events = progressPass();
        long now = System.nanoTime();
        if (events) {
            idle.event(now);
        }
        if (idle.polls(now)) {
            idle.pause();
            pollAgain(); // a completion, or the next get, is likely soon
        } else if (pending > 0) {
            try {
                delayedPoll = eventLoop.schedule(delayedPollTask, idle.timerPollNanos(), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                delayedPoll = null; // the event loop is shutting down; close() fails what is left
            }
        }
    }

    /** The timer poll: skipped when an immediate poll is queued (a get was issued meanwhile), which cancels it. */
    private void delayedPoll() {
        delayedPoll = null;
        if (!pollScheduled) {
            poll();
        }
    }

    private void cancelDelayedPoll() {
        if (delayedPoll != null) {
            delayedPoll.cancel(false);
            delayedPoll = null;
        }
    }

    /** The idle timer: progress for wire-up, keepalive and endpoint errors; stops once nothing is left to watch. */
    private void idle() {
        if (closed) {
            return;
        }
        if (!pollScheduled) {
            progressPass();
        }
        closing.removeIf(UcpRequest::isCompleted);
        if (lanes.isEmpty() && draining.isEmpty() && closing.isEmpty() && pending == 0 && idleTimer != null) {
            idleTimer.cancel(false);
            idleTimer = null;
        }
    }

    /**
     * One pass: progress, then retire failed lanes, close drained ones and deliver completions (never in a callback).
     * Returns whether UCX reported any event.
     */
    private boolean progressPass() {
        boolean events = !toFlush.isEmpty();
        for (EventLoopLane lane : toFlush) {
            lane.flush();
        }
        toFlush.clear();
        events |= progressAll();
        if (!failedLanes.isEmpty()) {
            retireFailedLanes();
        }
        closeDrainedLanes();
        deliverQueued();
        return events;
    }

    private void retireFailedLanes() {
        for (EventLoopLane lane : failedLanes) {
            if (lanes.get(lane.channel) == lane) {
                lanes.remove(lane.channel);
            }
            draining.remove(lane);
            owner.metrics().error();
            log.debug("Retiring a UCX event-loop lane on " + name + ": " + lane.failure().getMessage());
            retire(lane, lane.failure());
        }
        failedLanes.clear();
    }

    private void retire(EventLoopLane lane, UcxTransportException cause) {
        if (lane.isClosed()) {
            return;
        }
        UcpRequest request = lane.close(cause);
        if (request != null && !request.isCompleted()) {
            closing.add(request);
        }
        owner.metrics().laneClosed();
        if (pending > 0 && !closed) {
            schedulePoll();
        }
    }

    /**
     * Hands the completions queued so far to their callers, each on its own context, on this (its) thread. Those
     * queued meanwhile (a caller issuing its next get from a completion) wait for the next task, so a caller that
     * chains gets forever still lets the event loop serve its other work between two tasks.
     */
    private void deliverQueued() {
        for (int n = completed.size(); n > 0; n--) {
            LaneGetOp op = completed.poll();
            settle(op);
            VertxInternals.emit(op.context, op);
        }
        for (int n = deferredViews.size(); n > 0; n--) { // a view holds its key copy: valid after a close too
            DeferredView deferred = deferredViews.poll();
            VertxInternals.emit(deferred.context(), deferred);
        }
        if ((!completed.isEmpty() || !deferredViews.isEmpty()) && !closed) {
            schedulePoll();
        }
    }

    private void settle(LaneGetOp op) {
        op.lane.untrack(op);
        pending--;
        if (op.succeeded()) {
            owner.metrics().laneGetsCompleted(op.count, op.length);
        } else {
            owner.metrics().error();
        }
    }

    /** Progress until UCX has nothing more to do (bounded, so the event loop gets back to its I/O). */
    private boolean progressAll() {
        int i = 0;
        while (i < idle.maxProgressPerPass() && progressOnce() > 0) {
            i++; // each pass may complete gets; their callbacks only queue them
        }
        return i > 0;
    }

    private int progressOnce() {
        try {
            return worker.progress();
        } catch (Throwable e) {
            log.error("UCX progress raised an error on " + name, e);
            return 0;
        }
    }
}
