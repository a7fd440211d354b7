package org.seaweedfs.rdma.sidecar.resilience;

import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.protocol.ErrorCode;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.connection.AgentError;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which failed RDMA attempts count against the agent's breaker: the connection's, never one volume's. */
class BreakerBlameTest {

    @Test
    void theConnectionsFailuresCount() {
        assertTrue(BreakerBlame.blamesConnection(ReadFailure.unavailable("endpoint closed", null)));
        assertTrue(BreakerBlame.blamesConnection(new ReadFailure(ReadFailure.Kind.TIMEOUT, "no answer")));
        assertTrue(BreakerBlame.blamesConnection(ReadFailure.unavailable("agent answered",
                new AgentError(ErrorCode.HANDSHAKE_REQUIRED, "hello first", false))));
    }

    @Test
    void oneVolumesTroubleAndThisSidecarsBoundsDoNot() {
        assertFalse(BreakerBlame.blamesConnection(ReadFailure.corrupt("crc")));
        assertFalse(BreakerBlame.blamesConnection(ReadFailure.volumeTrouble("only 6 of the 10 shards")));
        assertFalse(BreakerBlame.blamesConnection(ReadFailure.dataGone("record moved", null)));
        assertFalse(BreakerBlame.blamesConnection(ReadFailure.overloaded("pool used up")));
        for (ErrorCode code : new ErrorCode[] {ErrorCode.STALE_EPOCH, ErrorCode.UNAVAILABLE, ErrorCode.INTERNAL,
                ErrorCode.OVERLOADED}) {
            assertFalse(BreakerBlame.blamesConnection(ReadFailure.unavailable("agent answered",
                    new AgentError(code, "volume reopening", code.retriableByDefault()))), code.toString());
        }
    }
}
