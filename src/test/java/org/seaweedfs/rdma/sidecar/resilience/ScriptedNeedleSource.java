package org.seaweedfs.rdma.sidecar.resilience;

import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.InMemoryNeedleSource;
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

    private volatile long readTimeoutMs = 2_000;

    private final InMemoryNeedleSource delegate;
    private final AtomicInteger calls = new AtomicInteger();
    private volatile ReadFailure failure;
    private volatile ReadFailure failNext;
    private final AtomicInteger failuresLeft = new AtomicInteger();

    ScriptedNeedleSource(InMemoryNeedleSource delegate) {
        this.delegate = delegate;
    }

    /** Every call fails with {@code f} (null: serve again). */
    void failWith(ReadFailure f) {
        failure = f;
    }

    /** The next {@code n} reads fail with {@code f}, the ones after them are served (or held) as before. */
    void failNext(int n, ReadFailure f) {
        failNext = f;
        failuresLeft.set(n);
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

    /** The deadline it reports (the resilient source waits this long for agents at start-up); reads set none. */
    @Override
    public long readTimeoutMs() {
        return readTimeoutMs;
    }

    /** Reports {@code timeout} as its deadline from now on. */
    public ScriptedNeedleSource withReadTimeout(java.time.Duration timeout) {
        readTimeoutMs = timeout.toMillis();
        return this;
    }

    @Override
    public Future<NeedleContent> read(FileId fid, String volumeServerHint) {
        calls.incrementAndGet();
        ReadFailure f = failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0 ? failNext : failure;
        return f != null ? Future.failedFuture(f) : delegate.read(fid, volumeServerHint);
    }
}
