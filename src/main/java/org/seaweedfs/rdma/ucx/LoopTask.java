package org.seaweedfs.rdma.ucx;

/** Work handed to the worker's owner thread. */
interface LoopTask {

    /** Runs on the owner thread, outside any UCX callback. */
    void runOnLoop();

    /** The loop stopped before running this task: fail whatever waits for it (called on any thread). */
    void reject(UcxTransportException cause);

    static LoopTask of(Runnable action) {
        return new LoopTask() {
            @Override
            public void runOnLoop() {
                action.run();
            }

            @Override
            public void reject(UcxTransportException cause) {
            }
        };
    }
}
