package org.seaweedfs.rdma.sidecar.connection;
import org.seaweedfs.rdma.sidecar.locations.NeedleLocation;

/**
 * An agent's answer about one needle.
 *
 * @param epoch    the volume epoch the answer belongs to (0 for an unknown volume)
 * @param location where the record is when {@link Status#FOUND}, else null
 */
public record LookupAnswer(Status status, long epoch, NeedleLocation location) {

    public enum Status {
        FOUND,
        /** Missing, deleted, Size 0 or another cookie: the volume server's 404. */
        NOT_FOUND,
        /** The agent does not serve the volume (any more). */
        UNKNOWN_VOLUME
    }
}
