package org.seaweedfs.rdma.protocol;

/**
 * Why a request failed, as carried by {@link ErrorReply} and {@link ProtocolException}. Wire ids are stable:
 * a code may be added in a later protocol version, never renumbered.
 */
public enum ErrorCode {
    /** The frame could not be decoded or broke a rule of this document (bounds, types, required fields). */
    BAD_FRAME(1, false),
    /** The frame's version byte, or Hello.protocolVersion, is one this peer does not speak. */
    UNSUPPORTED_VERSION(2, false),
    /** Hello carried no token or the wrong one. */
    UNAUTHORIZED(3, false),
    /** A request other than Hello arrived before the handshake completed. */
    HANDSHAKE_REQUIRED(4, false),
    /** The needle does not exist, is deleted, or the cookie does not match (read-through only). */
    NOT_FOUND(5, false),
    /** The agent serves no volume with that id. */
    UNKNOWN_VOLUME(6, false),
    /** The volume was compacted or reopened: re-fetch the volume list, then retry with the new epoch. */
    STALE_EPOCH(7, true),
    /** The frame exceeds the maximum frame size, or a request asks for more than one frame can carry. */
    TOO_LARGE(8, false),
    /** A well-formed request the agent cannot serve as asked, e.g. a read-through range outside the record. */
    BAD_REQUEST(9, false),
    /** The agent is busy (too many requests in flight): back off and retry. */
    OVERLOADED(10, true),
    /** The agent is starting, stopping or reopening the volume: retry later or elsewhere. */
    UNAVAILABLE(11, true),
    /** A fault inside the agent (e.g. an I/O error). */
    INTERNAL(12, false);

    private static final ErrorCode[] BY_WIRE_ID = new ErrorCode[13];

    static {
        for (ErrorCode code : values()) {
            BY_WIRE_ID[code.wireId] = code;
        }
    }

    private final int wireId;
    private final boolean retriableByDefault;

    ErrorCode(int wireId, boolean retriableByDefault) {
        this.wireId = wireId;
        this.retriableByDefault = retriableByDefault;
    }

    public int wireId() {
        return wireId;
    }

    /** The {@code retriable} flag an {@link ErrorReply} of this code carries unless the sender knows better. */
    public boolean retriableByDefault() {
        return retriableByDefault;
    }

    /** The code for a wire id, or null when the id is not one of this version's codes. */
    public static ErrorCode fromWireId(long wireId) {
        return wireId > 0 && wireId < BY_WIRE_ID.length ? BY_WIRE_ID[(int) wireId] : null;
    }
}
