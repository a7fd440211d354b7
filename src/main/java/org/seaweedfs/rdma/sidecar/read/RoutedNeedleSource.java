package org.seaweedfs.rdma.sidecar.read;

import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.connection.AgentRoute;

import io.vertx.core.Future;
import org.seaweedfs.rdma.volume.FileId;

/**
 * A read path through one agent (RDMA, read-through) that reads through the route its caller resolved, so a read
 * looks the agent up once. Completes on the caller's context, like {@link NeedleSource}.
 */
public interface RoutedNeedleSource {

    /** The whole needle through {@code route}'s connection; UNAVAILABLE when the route has no ready connection. */
    Future<NeedleContent> read(AgentRoute route, FileId fid);

    /**
     * A read's one deadline ({@code sidecar.readTimeout}). The path sets no timer of its own: its caller answers
     * TIMEOUT then and gives back an answer that lands later (the read's in-flight slot and buffers return as it
     * lands).
     */
    long readTimeoutMs();

    /** This path bound to {@code route}, as a {@link NeedleSource} (stat and slices from the verified whole needle). */
    default NeedleSource via(AgentRoute route) {
        return new NeedleSource() {
            @Override
            public Future<NeedleStat> stat(FileId fid) {
                return VerifiedNeedle.statOnly(read(fid));
            }

            @Override
            public Future<NeedleContent> read(FileId fid) {
                return RoutedNeedleSource.this.read(route, fid);
            }
        };
    }
}
