package org.seaweedfs.rdma.ucx;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;

/**
 * The operations a channel started on the owner thread and that have not finished yet, counted in the worker loop
 * (which keeps progressing while any is in flight). Owner thread only.
 */
final class PendingOps {

    private final WorkerLoop loop;
    private final Set<ChannelOp<?>> ops = new HashSet<>();

    PendingOps(WorkerLoop loop) {
        this.loop = loop;
    }

    void add(ChannelOp<?> op) {
        if (ops.add(op)) {
            loop.operationStarted();
        }
    }

    void remove(ChannelOp<?> op) {
        if (ops.remove(op)) {
            loop.operationFinished();
        }
    }

    /** Whether a get in flight uses {@code key} (a native key must outlive the gets issued with it). */
    boolean uses(UcxRemoteKey key) {
        for (ChannelOp<?> op : ops) {
            if (op instanceof GetOp get && get.uses(key)) {
                return true;
            }
        }
        return false;
    }

    /** Fails every operation still in flight with {@code cause}; none is left afterwards. */
    void failAll(UcxTransportException cause) {
        if (ops.isEmpty()) {
            return;
        }
        for (ChannelOp<?> op : new ArrayList<>(ops)) {
            op.fail(cause); // removes it
        }
        for (int left = ops.size(); left > 0; left--) {
            loop.operationFinished();
        }
        ops.clear();
    }
}
