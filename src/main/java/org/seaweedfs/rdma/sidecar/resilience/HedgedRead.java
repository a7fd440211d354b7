package org.seaweedfs.rdma.sidecar.resilience;

import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.connection.AgentPeer;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import org.seaweedfs.rdma.internals.VertxInternals;

/**
 * One read's race between its RDMA attempts and a hedge, under the read's one deadline. When the attempts have not
 * answered within the agent's hedge delay and the read has another source, the hedge starts there (within the
 * {@link HedgeBudget}, or at once when the agent is known bad: down, its breaker not closed, or for an EC read a
 * shard agent found late); the first answer is used and the other is given back when it lands ({@link Paths#discard}:
 * pooled memory and in-flight slots return). A hedge that wins counts against the agent's closed breaker
 * ({@link Paths#blamesAgent}), so an agent that stopped answering is soon skipped by new reads; not after an attempt
 * of the read failed with the agent answering ({@link #rdmaExcused}). At the deadline an unanswered read fails TIMEOUT.
 *
 * <p>Confined to its caller's context: every step runs there (the queues' wake-ups are emitted on it).
 */
final class HedgedRead<T> {

    /** The read's other paths. */
    interface Paths<T> {
        /**
         * What follows RDMA giving up with {@code failure}: the fallbacks but {@code hedged} (the source of a hedge
         * that failed, null without one), or the failure.
         */
        Future<T> afterRdma(Throwable failure, String hedged);

        /** The source a hedge would start now, null when the read has none. */
        String hedgeSource();

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
         * agent's breaker is open.
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
    private final ResilientNeedleSource.AgentGuard guard;
    private final AgentPeer peer;
    private final Paths<T> paths;
    private final Context context;
    private final Promise<T> outcome;
    private final long deadlineNanos;
    private long hedgeAtNanos;
    private long hedgeStartNanos;
    private boolean settled;
    private boolean rdmaOver;
    private boolean lostRace;
    /** An RDMA attempt failed for a reason not held against the agent's connection (the agent answered). */
    private boolean rdmaExcused;
    private Future<T> hedge;
    private String hedgeSource;
    /** A hedge that failed while RDMA was still out, and its source (not tried again for this read). */
    private Future<T> failedHedge;
    private String failedHedgeSource;
    /** Why RDMA gave up while the hedge was still out. */
    private Throwable rdmaFailure;

    HedgedRead(Hedging hedging, ResilientNeedleSource.AgentGuard guard, AgentPeer peer, Paths<T> paths,
               Context context, long deadlineNanos) {
        this.hedging = hedging;
        this.guard = guard;
        this.peer = peer;
        this.paths = paths;
        this.context = context;
        this.outcome = Promise.promise();
        this.deadlineNanos = deadlineNanos;
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

    /** Nothing is left to decide about a hedge: the read is answered, RDMA is over, or the hedge runs. */
    boolean hedgeDecided() {
        return settled || rdmaOver || hedge != null;
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
        if (!rdmaOver && (paths.hedgeSource() != null || paths.mayHedgeLater())) {
            armHedge(hedging.clock().nanoTime());
        }
    }

    private void armHedge(long now) {
        hedgeAtNanos = now + paths.hedgeDelayNanos();
        if (hedgeAtNanos - deadlineNanos < 0) {
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
        if (hedge == null && failedHedge == null) {
            paths.afterRdma(failure, null).onComplete(this::settleOrDiscard);
        } else if (failure instanceof ReadFailure rf && ResilientNeedleSource.isAnswer(rf)) {
            settle(Future.failedFuture(failure));
        } else if (hedge == null) {
            bothFailed(failure, failedHedge, failedHedgeSource);
        } else if (hedge.failed()) {
            bothFailed(failure, hedge, hedgeSource);
        } else {
            rdmaFailure = failure; // the hedge may still answer
        }
    }

    /** RDMA and the hedge failed: the hedge's answer, or the fallbacks the hedge did not try. */
    private void bothFailed(Throwable rdma, Future<T> failed, String source) {
        if (failed.cause() instanceof ReadFailure rf && ResilientNeedleSource.isAnswer(rf)) {
            settle(Future.failedFuture(rf));
        } else {
            paths.afterRdma(rdma, source).onComplete(this::settleOrDiscard);
        }
    }

    /** The hedge delay passed (a queue's wake-up, on the loop's thread). */
    void hedgeDue() {
        VertxInternals.emit(context, v -> {
            if (hedgeDecided()) {
                return;
            }
            String offered = paths.hedgeSource();
            // A source that failed this read once is not tried again.
            String source = offered != null && offered.equals(failedHedgeSource) ? null : offered;
            boolean knownBad = !peer.isUp() || guard.breaker().getState() != CircuitBreaker.State.CLOSED
                    || source != null && paths.goesAroundKnownBad(source);
            if (source == null || !knownBad && !hedging.budget().tryTake()) {
                armHedge(hedging.clock().nanoTime()); // no source yet, or the budget is dry: try again a delay later
                return;
            }
            hedging.started(source);
            hedgeStartNanos = hedging.clock().nanoTime();
            hedgeSource = source;
            hedge = paths.hedge(source);
            hedge.onComplete(ar -> hedgeLanded(source, ar));
        });
    }

    private void hedgeLanded(String source, AsyncResult<T> ar) {
        if (settled) {
            if (ar.succeeded()) {
                paths.discard(ar.result());
            }
            return;
        }
        if (ar.failed()) {
            if (rdmaOver) {
                bothFailed(rdmaFailure, hedge, source);
            } else if (paths.mayHedgeLater()) {
                // RDMA is still out and a source may come up meanwhile (a rebuild around a shard agent found late by
                // now): the read looks again a delay later; the failed source is not tried again.
                failedHedge = hedge;
                failedHedgeSource = source;
                hedge = null;
                armHedge(hedging.clock().nanoTime());
            }
            return;
        }
        // The books first: whoever waits on the read may look at them as soon as it is answered.
        hedging.won(source);
        long now = hedging.clock().nanoTime();
        // A trial call of a half-open breaker is judged by its own answer when it lands: an agent just back (cold, on
        // a loaded host) that answers late is not shut out again for losing a race.
        if (!rdmaOver && !rdmaExcused && paths.blamesAgent()
                && guard.breaker().getState() == CircuitBreaker.State.CLOSED) {
            lostRace = true;
            guard.failed(now - hedgeStartNanos + guard.hedgeDelay().nanos(), new ReadFailure(ReadFailure.Kind.TIMEOUT,
                    "agent " + peer.name() + " lost a read to " + source + " (no answer within its hedge delay)"));
        }
        if (now - hedgeStartNanos < guard.hedgeDelay().nanos()) {
            hedging.budget().giveBack();
        }
        settle(ar);
    }

    /** The read's deadline passed (a queue's wake-up, on the loop's thread). */
    void deadlinePassed() {
        VertxInternals.emit(context, v -> {
            if (!settled) {
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
