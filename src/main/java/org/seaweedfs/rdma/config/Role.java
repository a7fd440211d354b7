package org.seaweedfs.rdma.config;

/** What a process runs; both at once for the demo and for tests. */
public enum Role {
    AGENT, SIDECAR
}
