package org.seaweedfs.rdma.ucx;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpConstants;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpMemMapParams;
import org.openucx.jucx.ucp.UcpMemory;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpRemoteKey;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;
import org.openucx.jucx.ucs.UcsConstants;
import org.seaweedfs.rdma.testing.UcxSetup;

/**
 * Why the project stays on JUCX 1.15 although Debian 12's UCX is 1.13.1 (docs/protocol.md, "UCX versions"): JUCX up to
 * 1.14 keeps
 * a JNI global reference to every request that completes inside its call (an active message that fits a fragment,
 * a get of UCX-allocated memory over shared memory), so each one stays on the heap for good: about 56 bytes a request,
 * 54 MB per million measured with 1.12.1 and 1.14. Those requests are the agent's control replies and, with
 * {@code agent.volumeMemory: ucx}, every sidecar read. ReadPathHeapTest does not see it: gets of mapped files are
 * emulated and complete later.
 */
@Tag("slow") // GC-sensitive: the slow-tests execution runs it
class JucxRequestLeakTest {

    private static final int REQUESTS = 200_000;
    private static final int AM_ID = 1;

    @Test
    void requestsThatCompleteAtOnceLeaveNothingOnTheHeap() throws Exception {
        UcxLogFilter.install();
        UcpParams params = new UcpParams().requestRmaFeature().requestAmFeature();
        UcxSetup.tls("sm,self").settings().contextConfig().forEach(params::setConfig);
        try (UcpContext context = new UcpContext(params);
             UcpWorker a = context.newWorker(new UcpWorkerParams());
             UcpWorker b = context.newWorker(new UcpWorkerParams());
             UcpMemory memory = context.memoryMap(new UcpMemMapParams().allocate().setLength(1 << 16))) {
            long[] received = {0};
            b.setAmRecvHandler(AM_ID, (header, headerLength, data, replyEp) -> {
                received[0]++;
                return UcsConstants.STATUS.UCS_OK;
            }, UcpConstants.UCP_AM_FLAG_WHOLE_MSG);
            UcpEndpoint endpoint = a.newEndpoint(new UcpEndpointParams().setUcpAddress(b.getAddress())
                    .setPeerErrorHandlingMode());
            UcpRemoteKey key = endpoint.unpackRemoteKey(memory.getRemoteKeyBuffer());
            long local = UcxUtils.getAddress(ByteBuffer.allocateDirect(64));
            long message = UcxUtils.getAddress(ByteBuffer.allocateDirect(64));
            long[] atOnce = {0};
            Round round = () -> {
                for (int i = 0; i < REQUESTS; i++) {
                    complete(a, b, endpoint.sendAmNonBlocking(AM_ID, 0, 0, message, 64, 0, null), atOnce);
                    complete(a, b, endpoint.getNonBlocking(memory.getAddress() + (i & 1023) * 64L, key, local, 64,
                            null), atOnce);
                }
            };
            round.run(); // warms up the JIT and UCX's pools
            long before = UcxTestSupport.usedHeapAfterGc();
            atOnce[0] = 0;
            round.run();
            while (received[0] < 2L * REQUESTS) {
                a.progress();
                b.progress();
            }
            long growth = UcxTestSupport.usedHeapAfterGc() - before;
            assertTrue(atOnce[0] > REQUESTS, "too few requests completed at once to tell: " + atOnce[0]);
            assertTrue(growth < 4L << 20, "heap grew by " + (growth >> 10) + " KiB over " + atOnce[0]
                    + " requests that completed at once (JUCX " + UcxLibrary.jucxVersion() + ")");
            key.close();
            endpoint.close();
        }
    }

    private interface Round {
        void run() throws Exception;
    }

    private static void complete(UcpWorker a, UcpWorker b, UcpRequest request, long[] atOnce) throws Exception {
        if (request.isCompleted()) {
            atOnce[0]++;
            return;
        }
        while (!request.isCompleted()) {
            a.progress();
            b.progress();
        }
    }
}
