package org.seaweedfs.rdma.sidecar.resilience;

import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.connection.AgentPeer;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * One read's race between its RDMA attempts and its hedges, under the read's one deadline. When the attempts have not
 * answered within the agent's hedge delay and the read has another source, a hedge starts there (within the
 * {@link HedgeBudget}, or at once when the agent is known bad: down, its breaker not closed, or for an EC read a
 * shard agent found late or down); the first answer is used and the others are given back when they land
 * ({@link Paths#discard}: pooled memory and in-flight slots return). A hedge that has not answered within a further
 * hedge delay is followed by the next source the read has (one that did not fail it or stall it yet, or for an EC
 * read a rebuild around agents its earlier rebuilds did not all go around), up to {@value #MAX_HEDGES} sources a read
 * (and as many rebuilds). A hedge that wins counts against the agent's closed breaker ({@link Paths#blamesAgent}),
 * so an agent that stopped answering is soon skipped by new reads; not after an attempt of the read failed with the
 * agent answering ({@link #rdmaExcused}), nor when the agent sent any frame while the read waited: an agent that
 * answers is busy (a volume reopening, a burst), not gone, and opening its breaker would keep every read off RDMA
 * for the breaker's open time after the burst ends. At the deadline an unanswered read fails TIMEOUT. Each hedge a
 * read starts, and why it ends, is logged at DEBUG.
 *
 * <p>Confined to its caller's context: every step runs there (the queues' wake-ups are emitted on it).
 */
final class HedgedRead<T> {

    private static final Logger LOG = LoggerFactory.getLogger(HedgedRead.class);

    /**
     * Sources one read may hedge to (and EC rebuilds it may start): a hedge that stalls is followed by another, but a
     * read never fans out further.
     */
    static final int MAX_HEDGES = 3;

    /** The read's other paths. */
    interface Paths<T> {
        /**
         * What follows RDMA giving up with {@code failure}: the fallbacks but {@code hedged} (the source of a hedge
         * that failed, null without one), or the failure.
         */
        Future<T> afterRdma(Throwable failure, String hedged);

        /**
         * The source a hedge would start now, null when the read has none: not one of {@code tried} (the sources of its
         * earlier hedges), but a rebuild of an EC read around agents none of its earlier rebuilds went around all of.
         */
        String hedgeSource(Set<String> tried);

        /** Whether a source may come up while the read waits (a rebuild around an agent found late). */
        boolean mayHedgeLater();

        /**
         * How long the read waits before it is hedged, or looks again for a source: the agent's hedge delay, or for an
         * erasure-coded volume the shortest of its shard agents' (one of them may be the one found late).
         */
        long hedgeDelayNanos();

        /**
         * Whether a hedge to {@code source} goes around an agent known bad for this read: one found late (gets or
         * lookups out, none landed within its own p99) or down. Such a hedge needs no budget, as for a read whose
         * agent's breaker is open; a true answer claims it (one per get the bad agent has out).
         */
        boolean goesAroundKnownBad(String source);

        /** Starts the hedge on {@code source}. */
        Future<T> hedge(String source);

        /** Gives back an answer that is not used. */
        void discard(T unused);

        /** The failure of a read that reached its deadline unanswered. */
        ReadFailure pastDeadline();

        /**
         * Whether a lost race is the agent's fault: not for an erasure-coded volume, whose shards other agents serve
         * too (one of them may be the slow one).
         */
        boolean blamesAgent();
    }

    private final Hedging hedging;
    /** What is read, for the debug log. */
    private final Object what;
    private final ResilientNeedleSource.AgentGuard guard;
    private final AgentPeer peer;
    private final Paths<T> paths;
    private final Context context;
    private final Promise<T> outcome;
    private final long deadlineNanos;
    /** The agent's link when the read started (null when down), and the frames heard on it by then. */
    private final AgentPeer.Link link;
    private final long framesHeardAtStart;
    private long hedgeAtNanos;
    /** The read waits in its agent's hedge queue for {@link #hedgeAtNanos}. */
    private boolean armed;
    private boolean settled;
    private boolean rdmaOver;
    /** The read is on the fallbacks that follow RDMA: no hedge is started any more. */
    private boolean onFallbacks;
    private boolean lostRace;
    /** An RDMA attempt failed for a reason not held against the agent's connection (the agent answered). */
    private boolean rdmaExcused;
    /** The sources of the hedges started, in order (a handful at most; none for nearly every read). */
    private Set<String> tried = Set.of();
    private int hedgesOut;
    /** The last hedge that failed, and its source. */
    private Future<T> failedHedge;
    private String failedHedgeSource;
    /** Why RDMA gave up while a hedge was still out. */
    private Throwable rdmaFailure;

    HedgedRead(Hedging hedging, Object what, ResilientNeedleSource.AgentGuard guard, AgentPeer peer, Paths<T> paths,
               Context context, long deadlineNanos) {
        this.hedging = hedging;
        this.what = what;
        this.guard = guard;
        this.peer = peer;
        this.paths = paths;
        this.context = context;
        this.outcome = Promise.promise();
        this.deadlineNanos = deadlineNanos;
        this.link = peer.link();
        this.framesHeardAtStart = link == null ? 0 : link.framesHeard();
    }

    Future<T> future() {
        return outcome.future();
    }

    long deadlineNanos() {
        return deadlineNanos;
    }

    long hedgeAtNanos() {
        return hedgeAtNanos;
    }

    boolean isSettled() {
        return settled;
    }

    /**
     * No hedge look is due: the read is not waiting for one, is answered, is on the fallbacks, or started all the
     * hedges it may.
     */
    boolean hedgeDecided() {
        return !armed || settled || onFallbacks || tried.size() >= MAX_HEDGES;
    }

    /**
     * The hedge answered first while the RDMA attempt was still out, and that is held against the agent: the attempt
     * is already counted as failed.
     */
    boolean lostRace() {
        return lostRace;
    }

    /**
     * After the first attempt started: a read not answered within the call waits for its deadline, and while RDMA is
     * out, for its hedge. A read whose RDMA gave up at once (its breaker open) is on the fallbacks: their chain sets no
     * timer, so the deadline holds it too.
     */
    void arm() {
        if (settled) {
            return;
        }
        hedging.deadlines(context).add(this);
        if (!rdmaOver && (paths.hedgeSource(tried) != null || paths.mayHedgeLater())) {
            armHedge(hedging.clock().nanoTime());
        }
    }

    /** The read looks for a hedge a hedge delay from {@code now}, if that is before its deadline. */
    private void armHedge(long now) {
        long at = now + paths.hedgeDelayNanos();
        if (at - deadlineNanos >= 0 || settled || onFallbacks || tried.size() >= MAX_HEDGES) {
            return;
        }
        hedgeAtNanos = at;
        if (!armed) {
            armed = true;
            hedging.hedges(context, peer.name()).add(this);
        }
    }

    /**
     * An RDMA attempt failed for a reason not held against the agent's connection: the agent answered about the
     * volume or the data (bytes gone, a volume it cannot serve now), or this sidecar's own bound refused it. A hedge
     * that wins while a retry is out shows nothing against the agent then: its breaker is not told.
     */
    void rdmaExcused() {
        rdmaExcused = true;
    }

    /** An RDMA attempt answered. */
    void rdmaSucceeded(T value) {
        rdmaOver = true;
        if (!settle(Future.succeededFuture(value))) {
            paths.discard(value);
        }
    }

    /** The RDMA attempts gave up (retries included). */
    void rdmaGaveUp(Throwable failure) {
        rdmaOver = true;
        if (settled) {
            return;
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("Read of {} via {}: RDMA gave up ({}), {} hedges out", what, peer.name(), failure.getMessage(),
                    hedgesOut);
        }
        if (hedgesOut == 0 && failedHedge == null) {
            toFallbacks(failure, null);
        } else if (failure instanceof ReadFailure rf && ResilientNeedleSource.isAnswer(rf)) {
            settle(Future.failedFuture(failure));
        } else if (hedgesOut == 0) {
            bothFailed(failure, failedHedge, failedHedgeSource);
        } else {
            rdmaFailure = failure; // a hedge may still answer
        }
    }

    /** RDMA and the hedges failed: the last hedge's answer, or the fallbacks it did not try. */
    private void bothFailed(Throwable rdma, Future<T> failed, String source) {
        if (failed.cause() instanceof ReadFailure rf && ResilientNeedleSource.isAnswer(rf)) {
            settle(Future.failedFuture(rf));
        } else {
            toFallbacks(rdma, source);
        }
    }

    private void toFallbacks(Throwable rdma, String hedged) {
        onFallbacks = true;
        LOG.debug("Read of {} via {}: on the fallbacks, no more hedges (the failed hedge: {})", what, peer.name(),
                hedged);
        paths.afterRdma(rdma, hedged).onComplete(this::settleOrDiscard);
    }

    /** A hedge look fell due (a queue's wake-up, on the loop's thread). */
    void hedgeDue() {
        VertxInternals.emit(context, v -> {
            if (hedgeDecided()) {
                return;
            }
            if (hedging.clock().nanoTime() - hedgeAtNanos < 0) { // armed again later meanwhile: wait for that
                hedging.hedges(context, peer.name()).add(this);
                return;
            }
            armed = false;
            String source = paths.hedgeSource(tried);
            boolean knownBad = !peer.isUp() || guard.breaker().getState() != CircuitBreaker.State.CLOSED
                    || source != null && paths.goesAroundKnownBad(source);
            if (LOG.isDebugEnabled()) {
                LOG.debug("Read of {} via {}: hedge look found {} (known bad {}; tried {}, {} out)", what, peer.name(),
                        source, knownBad, tried, hedgesOut);
            }
            if (source == null || !knownBad && !hedging.budget().tryTake()) {
                // No source yet, or the budget is dry: look again a delay later while RDMA or a hedge is out and a
                // source may still come up.
                if (source != null || paths.mayHedgeLater()) {
                    armHedge(hedging.clock().nanoTime());
                }
                return;
            }
            hedging.started(source);
            long startNanos = hedging.clock().nanoTime();
            if (tried.isEmpty()) {
                tried = new LinkedHashSet<>(MAX_HEDGES);
            }
            tried.add(source);
            hedgesOut++;
            Future<T> hedge = paths.hedge(source);
            // Should this hedge stall too, the read looks for another source a delay later.
            armHedge(startNanos);
            hedge.onComplete(ar -> hedgeLanded(source, hedge, startNanos, ar));
        });
    }

    private void hedgeLanded(String source, Future<T> hedge, long startNanos, AsyncResult<T> ar) {
        hedgesOut--;
        if (LOG.isDebugEnabled()) {
            LOG.debug("Read of {} via {}: hedge to {} {}", what, peer.name(), source,
                    ar.succeeded() ? "answered" : "failed: " + ar.cause().getMessage());
        }
        if (settled) {
            if (ar.succeeded()) {
                paths.discard(ar.result());
            }
            return;
        }
        if (ar.failed()) {
            failedHedge = hedge;
            failedHedgeSource = source;
            if (rdmaOver) {
                if (hedgesOut == 0) {
                    bothFailed(rdmaFailure, hedge, source);
                }
            } else if (paths.mayHedgeLater()) {
                // RDMA is still out and a source may come up meanwhile (a rebuild around a shard agent found stalled by
                // now): the read looks again a delay later; the failed source is not tried again.
                armHedge(hedging.clock().nanoTime());
            }
            return;
        }
        // The books first: whoever waits on the read may look at them as soon as it is answered.
        hedging.won(source);
        long now = hedging.clock().nanoTime();
        // A trial call of a half-open breaker is judged by its own answer when it lands: an agent just back (cold, on
        // a loaded host) that answers late is not shut out again for losing a race.
        if (!rdmaOver && !rdmaExcused && paths.blamesAgent() && agentSilent()
                && guard.breaker().getState() == CircuitBreaker.State.CLOSED) {
            lostRace = true;
            guard.failed(now - startNanos + guard.hedgeDelay().nanos(), new ReadFailure(ReadFailure.Kind.TIMEOUT,
                    "agent " + peer.name() + " lost a read to " + source + " (no answer within its hedge delay)"));
        }
        if (now - startNanos < guard.hedgeDelay().nanos()) {
            hedging.budget().giveBack();
        }
        settle(ar);
    }

    /** Whether the agent sent nothing on the read's link since the read started. */
    private boolean agentSilent() {
        return link == null || link.framesHeard() == framesHeardAtStart;
    }

    /** The read's deadline passed (a queue's wake-up, on the loop's thread). */
    void deadlinePassed() {
        VertxInternals.emit(context, v -> {
            if (!settled) {
                if (LOG.isDebugEnabled()) {
                    LOG.debug("Read of {} via {}: past its deadline; tried {}, {} out, RDMA over {}, on fallbacks {}, "
                            + "armed {}", what, peer.name(), tried, hedgesOut, rdmaOver, onFallbacks, armed);
                }
                hedging.pastDeadline();
                settle(Future.failedFuture(paths.pastDeadline()));
            }
        });
    }

    private void settleOrDiscard(AsyncResult<T> ar) {
        if (!settle(ar) && ar.succeeded()) {
            paths.discard(ar.result());
        }
    }

    /** The read's one answer; false when it has one already. */
    private boolean settle(AsyncResult<T> ar) {
        if (settled) {
            return false;
        }
        settled = true;
        hedging.budget().readCompleted();
        if (ar.succeeded()) {
            outcome.complete(ar.result());
        } else {
            outcome.fail(ar.cause());
        }
        return true;
    }
}
