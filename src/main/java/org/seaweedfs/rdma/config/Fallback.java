package org.seaweedfs.rdma.config;

/** Where a read degrades to when RDMA cannot serve it, tried in the configured order. */
public enum Fallback {
    /** The agent copies the bytes over its control channel. */
    READ_THROUGH("read-through"),
    /** A {@code Range} request to the volume server. */
    HTTP("http");

    public final String configName;

    Fallback(String configName) {
        this.configName = configName;
    }
}
