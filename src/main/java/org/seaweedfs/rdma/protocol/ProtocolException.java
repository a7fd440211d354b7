package org.seaweedfs.rdma.protocol;

/**
 * A frame or message that breaks the protocol: thrown by {@link ControlCodec} on decode (malformed input from a
 * peer) and on encode (a message that could not go on the wire), and by message constructors whose fields are out
 * of bounds. Unchecked so that it can cross the UCX callback; it is the only exception decode throws for bad input.
 */
public final class ProtocolException extends RuntimeException {
    private final ErrorCode code;
    private final long requestId;

    public ProtocolException(ErrorCode code, String message) {
        this(code, 0, message);
    }

    /** @param requestId the request the bad frame belonged to when its header was readable, else 0 */
    public ProtocolException(ErrorCode code, long requestId, String message) {
        super(message);
        this.code = code;
        this.requestId = requestId;
    }

    public ErrorCode code() {
        return code;
    }

    /** The request id of the offending frame (so the reply reaches the waiting request), 0 when unknown. */
    public long requestId() {
        return requestId;
    }

    /** The reply a peer sends back for this failure: same request id, code, message cut to the bound. */
    public ErrorReply toReply() {
        return ErrorReply.of(requestId, code, getMessage());
    }

    /** The same failure, attributed to a request and placed inside an enclosing field (e.g. a list element). */
    ProtocolException within(long requestId, String context) {
        return new ProtocolException(code, requestId, context == null ? getMessage() : context + ": " + getMessage());
    }
}
