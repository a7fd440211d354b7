package org.seaweedfs.rdma.sidecar;

/**
 * The paths a read can be served by. {@link #wire} is the name the APIs show ({@code X-Source}, the event bus's
 * {@code source}, the {@code source} tag of the read meters, {@link NeedleStat#source()}): a contract, never renamed.
 */
public enum ReadPath {
    /** A UCX get of the record from the agent's registered volume memory. */
    RDMA("rdma"),
    /** The agent copies the record over its control channel. */
    READ_THROUGH("read-through"),
    /** The volume server over HTTP. */
    HTTP("http");

    public final String wire;

    ReadPath(String wire) {
        this.wire = wire;
    }

    /** Whether {@code source} (a {@link NeedleStat#source()}) names this path. */
    public boolean is(String source) {
        return wire.equals(source);
    }
}
