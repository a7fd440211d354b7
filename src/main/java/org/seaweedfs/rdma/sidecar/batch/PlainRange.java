package org.seaweedfs.rdma.sidecar.batch;

import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.volume.FileId;

/**
 * The reads of a range of a call's fids as one {@link NeedleSource#readMany} of their plain bytes: a fid that does
 * not parse fails its own entry, the others are read together.
 */
public final class PlainRange {

    private PlainRange() {
    }

    /** @param fidAt the fid at an index of the call; it throws for one that does not parse */
    public static OrderedReads.Range of(NeedleSource source, long maxPlainBytes, IntFunction<FileId> fidAt) {
        return (from, to) -> {
            @SuppressWarnings("unchecked")
            Future<NeedleContent>[] out = new Future[to - from];
            List<FileId> fids = new ArrayList<>(to - from);
            int[] at = new int[to - from];
            for (int i = from; i < to; i++) {
                try {
                    FileId fid = fidAt.apply(i);
                    at[fids.size()] = i - from;
                    fids.add(fid);
                } catch (RuntimeException e) {
                    out[i - from] = Future.failedFuture(e);
                }
            }
            List<Future<NeedleContent>> read = source.readMany(fids, maxPlainBytes);
            for (int k = 0; k < read.size(); k++) {
                out[at[k]] = read.get(k);
            }
            return Arrays.asList(out);
        };
    }
}
