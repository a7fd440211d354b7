package org.seaweedfs.rdma.sidecar.resilience;

import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.connection.AgentError;

/**
 * Whether a failed RDMA attempt is held against the agent's circuit breaker. The breaker guards the connection:
 * only a failing transport counts (a channel lost or refused, a get or request that failed, a timeout, an agent
 * that no longer speaks the protocol). The data's or the volume's trouble does not: a corrupt record, a volume
 * short of shards or mid-switch, an agent answering that it cannot serve that volume now. Those are one volume's,
 * and opening the breaker for them would take every healthy volume of the agent off RDMA. Nor do this sidecar's
 * own bounds ({@link ReadFailure#overload()}).
 */
final class BreakerBlame {

    private BreakerBlame() {
    }

    /**
     * Whether an attempt that failed so was answered by the agent (its bytes or volume in trouble, or corrupt): the
     * agent serves; not a refusal at this sidecar's own bounds, which never reached it.
     */
    static boolean agentAnswered(ReadFailure failure) {
        return !failure.overload() && !blamesConnection(failure);
    }

    /** False for a failure of the data, the volume or this sidecar's bounds; true for the connection's. */
    static boolean blamesConnection(ReadFailure failure) {
        if (failure.kind() == ReadFailure.Kind.CORRUPT || failure.overload() || failure.dataGone()) {
            return false;
        }
        if (failure.kind() == ReadFailure.Kind.UNAVAILABLE && failure.getCause() instanceof AgentError answer) {
            return switch (answer.code()) {
                // The agent answered about the volume or itself: the connection works.
                case STALE_EPOCH, UNAVAILABLE, INTERNAL, OVERLOADED, NOT_FOUND, UNKNOWN_VOLUME, BAD_REQUEST,
                        TOO_LARGE -> false;
                // The control channel itself (handshake, framing) is broken.
                case BAD_FRAME, UNSUPPORTED_VERSION, UNAUTHORIZED, HANDSHAKE_REQUIRED -> true;
            };
        }
        return true;
    }
}
