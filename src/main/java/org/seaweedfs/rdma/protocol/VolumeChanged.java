package org.seaweedfs.rdma.protocol;

/**
 * Pushed by the agent (request id 0) when a volume's shape changed: the sidecar re-fetches the volume list
 * (and, for COMPACTED, re-syncs the needle map from 0 under the new epoch; for REMOVED, drops the volume).
 */
public record VolumeChanged(long requestId, long volumeId, long epoch, Reason reason) implements ControlMessage {

    /** Why the volume changed. Wire ids are stable. */
    public enum Reason {
        /** The .dat grew past its registered segments; new segments are registered. */
        GROWN(1),
        /** A volume appeared. */
        NEW(2),
        /** The files were replaced (compaction or reopen); {@code epoch} is the new epoch. */
        COMPACTED(3),
        /** The volume is no longer served. */
        REMOVED(4),
        /**
         * Since version 4, to sidecars of version 4 only: the volume's exposed needle index was replaced (same epoch);
         * drop its {@link IndexHandle} and ask again.
         */
        INDEX(5);

        private final int wireId;

        Reason(int wireId) {
            this.wireId = wireId;
        }

        public int wireId() {
            return wireId;
        }

        /** The reason for a wire id, or null when unknown. */
        public static Reason fromWireId(long wireId) {
            for (Reason reason : values()) {
                if (reason.wireId == wireId) {
                    return reason;
                }
            }
            return null;
        }
    }

    public VolumeChanged {
        FieldCheck.requestId("VolumeChanged", requestId, MessageType.VOLUME_CHANGED);
        FieldCheck.u32("VolumeChanged.volumeId", volumeId);
        if (reason == null) {
            throw FieldCheck.bad("VolumeChanged.reason", "is required");
        }
    }

    /** The push form (request id 0). */
    public VolumeChanged(long volumeId, long epoch, Reason reason) {
        this(0, volumeId, epoch, reason);
    }

    @Override
    public MessageType type() {
        return MessageType.VOLUME_CHANGED;
    }
}
