package org.seaweedfs.rdma.protocol;

/**
 * Asks for the handle of a volume's exposed needle index (version 4): answered by {@link IndexHandle}, or by
 * ErrorReply UNKNOWN_VOLUME, or NOT_FOUND while the agent exposes no index of the volume (then look needles up).
 *
 * @param volumeId u32
 */
public record IndexRequest(long requestId, long volumeId) implements ControlMessage {
    public IndexRequest {
        FieldCheck.requestId("IndexRequest", requestId, MessageType.INDEX_REQUEST);
        FieldCheck.u32("IndexRequest.volumeId", volumeId);
    }

    @Override
    public MessageType type() {
        return MessageType.INDEX_REQUEST;
    }
}
