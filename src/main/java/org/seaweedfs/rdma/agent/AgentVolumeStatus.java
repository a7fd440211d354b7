package org.seaweedfs.rdma.agent;

/**
 * One served volume as {@code /status} shows it: a snapshot taken on the agent's context after every pass.
 *
 * @param id         volume id
 * @param collection SeaweedFS collection ("" for none)
 * @param epoch      the epoch sidecars see (new on every reopen)
 * @param memory     {@code mapped} or {@code ucx} (a copy in UCX-allocated memory)
 * @param needles    live needles in its needle map
 * @param segments   registered segments of its {@code .dat}
 * @param servedBytes bytes of the {@code .dat} sidecars can read
 */
public record AgentVolumeStatus(long id, String collection, long epoch, String memory, int needles, int segments,
                                long servedBytes) {
}
