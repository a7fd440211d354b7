package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;

/**
 * Completions gathered during one pass of the owner loop and handed to their Vert.x contexts, one
 * {@code runOnContext} per run of consecutive completions for the same context (order per context is kept).
 * Owner thread only.
 */
final class CompletionBatch {

    private static final Logger log = LoggerFactory.getLogger(CompletionBatch.class);

    private final ArrayList<Context> contexts = new ArrayList<>();
    private final ArrayList<Runnable> actions = new ArrayList<>();

    void add(Context context, Runnable action) {
        contexts.add(context);
        actions.add(action);
    }

    boolean isEmpty() {
        return actions.isEmpty();
    }

    void flush() {
        int n = actions.size();
        int i = 0;
        while (i < n) {
            Context context = contexts.get(i);
            int j = i + 1;
            while (j < n && contexts.get(j) == context) {
                j++;
            }
            if (j == i + 1) {
                Runnable action = actions.get(i);
                context.runOnContext(v -> runSafely(action));
            } else {
                Runnable[] group = actions.subList(i, j).toArray(new Runnable[0]);
                context.runOnContext(v -> {
                    for (Runnable action : group) {
                        runSafely(action);
                    }
                });
            }
            i = j;
        }
        contexts.clear();
        actions.clear();
    }

    private static void runSafely(Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            log.error("UCX completion handler failed", e);
        }
    }
}
