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
 * {@link HedgeBudget}, or at once when the agent is known bad: down, or its breaker not closed); the first answer is
 * used and the other is given back when it lands ({@link Paths#discard}: pooled memory and in-flight slots return). A
 * hedge that wins counts against the agent's breaker ({@link Paths#blamesAgent}), so an agent that stopped answering
 * is soon skipped by new reads. At the deadline an unanswered read fails TIMEOUT.
 *
 * <p>Confined to its caller's context: every step runs there (the queues' wake-ups are emitted on it).
 */
final class HedgedRead<T> {

    /** The read's other paths. */
    interface Paths<T> {
        /** What follows RDMA giving up with {@code failure} before any hedge: the fallbacks, or the failure. */
        Future<T> afterRdma(Throwable failure);

        /** The source a hedge would start, null when the read has none. */
        String hedgeSource();

        /** Starts the hedge. */
        Future<T> hedge();

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
    private Future<T> hedge;

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

    /** After the first attempt started: a read not answered within the call waits for its hedge and its deadline. */
    void arm() {
        if (settled || rdmaOver) {
            return;
        }
        hedging.deadlines(context).add(this);
        if (paths.hedgeSource() != null) {
            armHedge(hedging.clock().nanoTime());
        }
    }

    private void armHedge(long now) {
        hedgeAtNanos = now + guard.hedgeDelay().nanos();
        if (hedgeAtNanos - deadlineNanos < 0) {
            hedging.hedges(context, peer.name()).add(this);
        }
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
        if (hedge == null) {
            paths.afterRdma(failure).onComplete(this::settleOrDiscard);
        } else if (failure instanceof ReadFailure rf && ResilientNeedleSource.isAnswer(rf) || hedge.failed()) {
            settle(Future.failedFuture(hedge.failed() ? hedge.cause() : failure));
        } // else the hedge may still answer; its failure will be the read's

    }

    /** The hedge delay passed (a queue's wake-up, on the loop's thread). */
    void hedgeDue() {
        VertxInternals.emit(context, v -> {
            if (hedgeDecided()) {
                return;
            }
            boolean knownBad = !peer.isUp() || guard.breaker().getState() != CircuitBreaker.State.CLOSED;
            if (!knownBad && !hedging.budget().tryTake()) {
                armHedge(hedging.clock().nanoTime()); // the budget is dry: try again a delay later
                return;
            }
            String source = paths.hedgeSource();
            hedging.started(source);
            hedgeStartNanos = hedging.clock().nanoTime();
            hedge = paths.hedge();
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
                settle(ar);
            }
            return;
        }
        // The books first: whoever waits on the read may look at them as soon as it is answered.
        hedging.won(source);
        long now = hedging.clock().nanoTime();
        if (!rdmaOver && paths.blamesAgent()) {
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
