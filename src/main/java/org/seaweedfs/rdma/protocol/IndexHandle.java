package org.seaweedfs.rdma.protocol;

/**
 * Where a volume's needle index lies in the agent's registered memory (version 4): {@code length} bytes at
 * {@code address}, readable with one-sided gets through {@code remoteKey}, laid out as {@code layout} says
 * (docs/protocol.md, "Exposed needle index"). Valid for the volume's {@code epoch} until the agent pushes
 * {@code VolumeChanged index}, and then for a grace only.
 *
 * @param volumeId  u32
 * @param epoch     the volume epoch whose index this is
 * @param layout    the layout version of the bytes, 1..255 (1: the agent's sorted index file, {@code .rdx} v1)
 * @param address   remote address of the first byte
 * @param length    bytes readable from {@code address}, at least 1
 * @param remoteKey the packed UCX remote key of the memory (1..4096 bytes)
 */
public record IndexHandle(long requestId, long volumeId, long epoch, int layout, long address, long length,
                          byte[] remoteKey) implements ControlMessage {
    public IndexHandle {
        FieldCheck.requestId("IndexHandle", requestId, MessageType.INDEX_HANDLE);
        FieldCheck.u32("IndexHandle.volumeId", volumeId);
        FieldCheck.range("IndexHandle.layout", layout, 1, 255);
        FieldCheck.range("IndexHandle.length", length, 1, Long.MAX_VALUE);
        remoteKey = FieldCheck.bytes("IndexHandle.remoteKey", remoteKey, 1, ProtocolLimits.MAX_REMOTE_KEY_BYTES);
    }

    @Override
    public MessageType type() {
        return MessageType.INDEX_HANDLE;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IndexHandle h && requestId == h.requestId && volumeId == h.volumeId && epoch == h.epoch
                && layout == h.layout && address == h.address && length == h.length
                && java.util.Arrays.equals(remoteKey, h.remoteKey);
    }

    @Override
    public int hashCode() {
        return (Long.hashCode(volumeId) * 31 + Long.hashCode(address)) * 31 + java.util.Arrays.hashCode(remoteKey);
    }

    @Override
    public String toString() {
        return "IndexHandle[requestId=" + requestId + ", volumeId=" + volumeId + ", epoch=" + epoch + ", layout="
                + layout + ", address=0x" + Long.toHexString(address) + ", length=" + length + ", remoteKey="
                + remoteKey.length + " bytes]";
    }
}
