package org.seaweedfs.rdma.protocol;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Every volume the agent serves, at most one entry per volume id (at most 65536 volumes). */
public record VolumeList(long requestId, List<VolumeInfo> volumes) implements ControlMessage {
    public VolumeList {
        FieldCheck.requestId("VolumeList", requestId, MessageType.VOLUME_LIST);
        FieldCheck.count("VolumeList.volumes", volumes, ProtocolLimits.MAX_VOLUMES);
        volumes = List.copyOf(volumes);
        Set<Long> seen = new HashSet<>();
        for (VolumeInfo volume : volumes) {
            if (!seen.add(volume.volumeId())) {
                throw FieldCheck.bad("VolumeList.volumes", "volume " + volume.volumeId() + " listed twice");
            }
        }
    }

    @Override
    public MessageType type() {
        return MessageType.VOLUME_LIST;
    }
}
