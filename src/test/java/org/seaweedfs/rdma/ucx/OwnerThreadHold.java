package org.seaweedfs.rdma.ucx;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Holds a UCX worker's owner thread until closed, for tests from other packages: what it serves (control frames, the
 * gets it emulates over TCP) waits meanwhile, as behind a peer that stopped answering.
 */
public final class OwnerThreadHold implements AutoCloseable {

    private final CountDownLatch release = new CountDownLatch(1);

    public OwnerThreadHold(UcxWorkerVerticle worker) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        worker.loop().execute(LoopTask.of(() -> {
            held.countDown();
            try {
                release.await(UcxTestSupport.TIMEOUT_S, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        if (!held.await(UcxTestSupport.TIMEOUT_S, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the owner thread was not held");
        }
    }

    @Override
    public void close() {
        release.countDown();
    }
}
