package org.seaweedfs.rdma.eventbus;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import io.vertx.junit5.VertxExtension;
import org.seaweedfs.rdma.LogCapture;
import org.seaweedfs.rdma.polling.AwakeLoop;

@ExtendWith(VertxExtension.class)
class ReplyBatchTest {

    @Test
    void repliesLeaveInOrderAfterTheTaskAndOneThatThrowsHoldsNoneBack(Vertx vertx) throws Exception {
        Context context = vertx.getOrCreateContext();
        ReplyBatch batch = new ReplyBatch(context, new AwakeLoop(context, 0));
        List<String> sent = new ArrayList<>();
        Promise<List<String>> seenAtTaskEnd = Promise.promise();
        Promise<Void> flushed = Promise.promise();
        List<String> warnings;
        try (LogCapture capture = LogCapture.of("org.seaweedfs.rdma.eventbus", "WARN")) {
            context.runOnContext(v -> {
                batch.add(() -> sent.add("a"));
                batch.add(() -> {
                    throw new IllegalStateException("requester gone");
                });
                batch.add(() -> sent.add("c"));
                seenAtTaskEnd.complete(List.copyOf(sent));
                context.runOnContext(w -> flushed.complete()); // queued behind the flush
            });
            flushed.future().await(10, TimeUnit.SECONDS);
            warnings = capture.messages();
        }
        assertEquals(List.of(), seenAtTaskEnd.future().result(), "nothing leaves inside the task that answered");
        assertEquals(List.of("a", "c"), sent);
        assertEquals(1, warnings.size(), warnings.toString());
    }
}
