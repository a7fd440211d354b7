package org.seaweedfs.rdma.sidecar.connection;

import org.seaweedfs.rdma.protocol.ErrorCode;

/** The agent answered a request with an {@code Error}; {@link #retriable()} is the agent's own verdict. */
public final class AgentError extends RuntimeException {

    private final ErrorCode code;
    private final boolean retriable;

    public AgentError(ErrorCode code, String message, boolean retriable) {
        super(message, null, false, false);
        this.code = code;
        this.retriable = retriable;
    }

    public ErrorCode code() {
        return code;
    }

    public boolean retriable() {
        return retriable;
    }
}
