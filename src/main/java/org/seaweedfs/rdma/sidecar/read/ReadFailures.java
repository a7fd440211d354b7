package org.seaweedfs.rdma.sidecar.read;

import org.seaweedfs.rdma.sidecar.ReadFailure;

import org.seaweedfs.rdma.sidecar.connection.AgentError;

import org.seaweedfs.rdma.volume.FileId;

/** Turns whatever failed under a read into the {@link ReadFailure} the APIs answer with. */
final class ReadFailures {

    private ReadFailures() {
    }

    static ReadFailure of(FileId fid, Throwable cause) {
        if (cause instanceof ReadFailure failure) {
            return failure;
        }
        if (cause instanceof AgentError error) {
            return switch (error.code()) {
                case NOT_FOUND, UNKNOWN_VOLUME -> ReadFailure.notFound("needle " + fid + ": " + error.getMessage());
                default -> ReadFailure.unavailable("reading " + fid + ": agent answered " + error.code() + ": "
                        + error.getMessage(), error);
            };
        }
        return ReadFailure.unavailable("reading " + fid + " failed: " + cause.getMessage(), cause);
    }
}
