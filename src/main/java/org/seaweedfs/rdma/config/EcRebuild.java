package org.seaweedfs.rdma.config;

/**
 * What the sidecar does when a data shard an EC needle needs is listed by no connected agent
 * ({@code sidecar.ecRebuild}).
 */
public enum EcRebuild {
    /** Read {@code dataShards} other shards of the same rows over RDMA and Reed-Solomon-decode the missing bytes. */
    RDMA,
    /** Fail the RDMA read (retriable): the resilient read path then tries its fallbacks (HTTP to a volume server). */
    FALLBACK
}
