package org.seaweedfs.rdma.sidecar.resilience;

import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.InMemoryNeedleSource;
import org.seaweedfs.rdma.sidecar.connection.AgentRoute;
import org.seaweedfs.rdma.sidecar.read.RoutedNeedleSource;

import org.seaweedfs.rdma.sidecar.connection.AgentRoute;
import org.seaweedfs.rdma.sidecar.read.RoutedNeedleSource;

import io.vertx.core.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.seaweedfs.rdma.volume.FileId;

/**
 * TEST DOUBLE of one read path (RDMA or read-through) for the resilience tests: counts calls and fails every
 * call with a scripted {@link ReadFailure} until healed; otherwise serves from an {@link InMemoryNeedleSource}
 * (whose hold/release makes calls hang and answer late).
 */
final class ScriptedNeedleSource implements NeedleSource, RoutedNeedleSource {

    private final InMemoryNeedleSource delegate;
    private final AtomicInteger calls = new AtomicInteger();
    private volatile ReadFailure failure;

    ScriptedNeedleSource(InMemoryNeedleSource delegate) {
        this.delegate = delegate;
    }

    /** Every call fails with {@code f} (null: serve again). */
    void failWith(ReadFailure f) {
        failure = f;
    }

    int calls() {
        return calls.get();
    }

    InMemoryNeedleSource delegate() {
        return delegate;
    }

    @Override
    public Future<NeedleStat> stat(FileId fid) {
        calls.incrementAndGet();
        ReadFailure f = failure;
        return f != null ? Future.failedFuture(f) : delegate.stat(fid);
    }

    @Override
    public Future<NeedleContent> read(FileId fid) {
        return read(fid, null);
    }

    /** The route is the resilient source's business; the script serves whichever agent it names. */
    @Override
    public NeedleSource via(AgentRoute route) {
        return this;
    }

    @Override
    public Future<NeedleContent> read(AgentRoute route, FileId fid) {
        return read(fid);
    }

    /** No deadline of its own: the resilient source bounds each attempt. */
    @Override
    public long readTimeoutMs() {
        return Long.MAX_VALUE;
    }

    @Override
    public Future<NeedleContent> read(FileId fid, String volumeServerHint) {
        calls.incrementAndGet();
        ReadFailure f = failure;
        return f != null ? Future.failedFuture(f) : delegate.read(fid, volumeServerHint);
    }
}
