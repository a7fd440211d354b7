package org.seaweedfs.rdma.protocol;

/** Asks for every volume the agent serves; answered by {@link VolumeList}. */
public record VolumeListRequest(long requestId) implements ControlMessage {
    public VolumeListRequest {
        FieldCheck.requestId("VolumeListRequest", requestId, MessageType.VOLUME_LIST_REQUEST);
    }

    @Override
    public MessageType type() {
        return MessageType.VOLUME_LIST_REQUEST;
    }
}
