package org.seaweedfs.rdma.sidecar.read;

import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.connection.AgentRoute;

import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
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

    /**
     * What a batch of reads through one agent gave: a future per fid, in order, and the outcome of the gets it posted
     * together (null when it posted none).
     */
    record Batch(List<Future<NeedleContent>> reads, Future<Void> gets) {
    }

    /**
     * The plain bytes of many needles of {@code route}'s volume, each as {@code single} would answer for its index:
     * a path that can serve some of them at once (one get each, posted together, verified as {@link #read} does)
     * does; every other needle (not located yet, too large for one buffer, a get or a check that failed, or all of
     * them once {@code giveUpMillis} passed without an answer) is {@code single}'s, which then answers for it. The
     * default hands them all to {@code single}. Call it on a Vert.x context.
     */
    default Batch readMany(AgentRoute route, List<FileId> fids, long maxPlainBytes, long giveUpMillis,
                           IntFunction<Future<NeedleContent>> single) {
        List<Future<NeedleContent>> reads = new ArrayList<>(fids.size());
        for (int i = 0; i < fids.size(); i++) {
            reads.add(single.apply(i));
        }
        return new Batch(reads, null);
    }

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
