package org.seaweedfs.rdma.protocol;

/**
 * One control-protocol message; one message travels in one frame (one UCX active message).
 * Every request carries a non-zero request id that its reply (or {@link ErrorReply}) echoes; pushes carry 0.
 * Constructors validate their fields and throw {@link ProtocolException} ({@link ErrorCode#BAD_FRAME}) when one is
 * out of bounds, so an instance is always encodable (frame size aside). Byte-array fields are not copied: do not
 * change an array after handing it to a message.
 */
public sealed interface ControlMessage
        permits Hello, HelloOk, ErrorReply, Ping, Pong, VolumeListRequest, VolumeList, Lookup, LookupResult,
                LookupBatch,
        LookupBatchResult,
        SyncRequest, SyncEntries, VolumeChanged, ReadThrough, ReadThroughData, IndexRequest, IndexHandle {

    /** The request id: non-zero for requests and replies, 0 for pushes. Unsigned 64-bit. */
    long requestId();

    MessageType type();
}
