package org.seaweedfs.rdma.sidecar.read;

import io.vertx.core.Future;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.connection.AgentRouter;
import org.seaweedfs.rdma.volume.FileId;

/**
 * What the RDMA and read-through paths share: a {@link ReadGate} bounding and timing their reads, and, used on its
 * own (without the resilient source, which resolves routes itself), a router that finds each needle's agent.
 */
abstract class GatedReadPath implements NeedleSource, RoutedNeedleSource {

    private final AgentRouter router;
    final ReadGate gate;

    GatedReadPath(AgentRouter router, ReadGate gate) {
        this.router = router;
        this.gate = gate;
    }

    public ReadCounters counters() {
        return gate.counters();
    }

    /** A read's one deadline ({@code sidecar.readTimeout}), which its caller holds it to. */
    @Override
    public long readTimeoutMs() {
        return gate.options().readTimeoutMs();
    }

    @Override
    public Future<NeedleStat> stat(FileId fid) {
        return VerifiedNeedle.statOnly(read(fid));
    }

    @Override
    public Future<NeedleContent> read(FileId fid) {
        return read(router.routeFor(fid.volumeId()), fid);
    }
}
