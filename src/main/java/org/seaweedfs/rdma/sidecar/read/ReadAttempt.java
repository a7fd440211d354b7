package org.seaweedfs.rdma.sidecar.read;

import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.connection.AgentConnection;
import org.seaweedfs.rdma.sidecar.connection.AgentRoute;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.function.Consumer;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.seaweedfs.rdma.volume.FileId;

/**
 * One admitted read and its single outcome. Confined to its caller's context (every step of a read completes
 * there), so its state needs no synchronisation. It has no timer: its caller holds the read to the read's one
 * deadline and gives back an answer that lands later; its in-flight slot returns when it lands.
 */
final class ReadAttempt {

    /** Stale locations and re-listed volumes retried per read. */
    private static final int MAX_RETRIES = 2;

    private final ReadGate gate;
    private final FileId fid;
    private final Promise<NeedleContent> promise;
    private boolean done;
    private int retries;

    ReadAttempt(ReadGate gate, FileId fid, Context context) {
        this.gate = gate;
        this.fid = fid;
        this.promise = VertxInternals.promise(context);
    }

    FileId fid() {
        return fid;
    }

    Future<NeedleContent> future() {
        return promise.future();
    }

    void begin(Consumer<ReadAttempt> body) {
        run(() -> body.accept(this));
    }

    /** Runs a step; anything it throws fails the read. */
    void run(Runnable step) {
        try {
            step.run();
        } catch (RuntimeException e) {
            fail(e);
        }
    }

    boolean isDone() {
        return done;
    }

    /** Whether another try is allowed (and counts it). */
    boolean mayRetry() {
        if (retries >= MAX_RETRIES) {
            return false;
        }
        retries++;
        gate.counters().retried();
        return true;
    }

    void succeed(NeedleContent content) {
        if (done) {
            content.release();
            return;
        }
        end();
        gate.counters().served(content.stat().size());
        promise.complete(content);
    }

    void fail(Throwable cause) {
        if (done) {
            return;
        }
        ReadFailure failure = ReadFailures.of(fid, cause);
        end();
        gate.counters().failed(failure.kind());
        promise.fail(failure);
    }

    private void end() {
        done = true;
    }

    /**
     * Goes on with the route its caller resolved once the route's volume is listed: a volume the connection does not
     * list is re-listed ({@link #relist}: it may just have been compacted or created) before the read fails
     * NOT_FOUND; or retriably when the agent announced a change of it that no list has told of yet (it is being
     * replaced: no answer says it is gone). Its connection must be ready; one that closed since the route was
     * resolved fails UNAVAILABLE.
     */
    void route(AgentRoute route, Consumer<AgentRoute> then) {
        AgentConnection connection = route == null ? null : route.connection();
        if (connection == null || !connection.isReady()) {
            fail(ReadFailure.unavailable("no agent connection is up for volume " + fid.volumeId(),
                    connection == null ? null : connection.closeCause()));
        } else if (route.volume() != null) {
            then.accept(route);
        } else {
            relist(route, connection.isRelisting(fid.volumeId())
                    ? ReadFailure.dataGone("volume " + fid.volumeId() + " changed at agent " + connection.peer()
                            + " and is being listed again", null)
                    : ReadFailure.notFound("volume " + fid.volumeId() + " is not served by agent "
                            + connection.peer()), then);
        }
    }

    /**
     * The one place a read has its agent list the volumes again (the volume was not listed, or changed epoch or went
     * while the read looked it up), then goes on with the new view; past {@value #MAX_RETRIES} re-lists it fails with
     * {@code failure}.
     */
    void relist(AgentRoute route, ReadFailure failure, Consumer<AgentRoute> then) {
        if (!mayRetry()) {
            fail(failure);
            return;
        }
        route.connection().refreshVolumes().onComplete(ar -> {
            if (!done) {
                run(() -> route(route.relisted(), then));
            }
        });
    }
}
