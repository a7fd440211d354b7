package org.seaweedfs.rdma.ucx;

import org.openucx.jucx.ucp.UcpConstants;

/**
 * The active-message ids this transport uses. Every message asks UCX for a reply endpoint, which is how the
 * receiver finds the channel it belongs to (the reply endpoint is the receiver's own endpoint to the sender).
 */
final class ActiveMessages {

    /**
     * Client to server, first message on a new endpoint. Both handshake messages carry the sender's UCX worker address
     * as data, which event-loop lanes connect to ({@link EventLoopLane}); peers that send none get no lanes.
     */
    static final int HELLO = 0;
    /** Server to client: the handshake is done, the channel is usable. */
    static final int HELLO_ACK = 1;
    /** A control frame, either direction. */
    static final int FRAME = 2;

    /** Largest worker address accepted in a handshake (one is a few hundred bytes; RDMA devices add to it). */
    static final int MAX_WORKER_ADDRESS_BYTES = 16 << 10;

    static final long SEND_FLAGS = UcpConstants.UCP_AM_SEND_FLAG_REPLY;
    static final long RECV_FLAGS = UcpConstants.UCP_AM_FLAG_WHOLE_MSG;

    private ActiveMessages() {
    }
}
