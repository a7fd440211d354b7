package org.seaweedfs.rdma.agent;

/**
 * AgentFollowTest's tests with agent.volumeMemory: ucx: following the volume server (appends, growth past the tail
 * segment, new volumes, compaction) served from UCX-allocated copies.
 */
class AgentFollowFromCopiesTest extends AgentFollowTest {

    @Override
    String base() {
        return VolumeCopyTest.COPIES;
    }

    /** Several copied segments (growth past a segment) in a few KiB: a copy of a 1 GiB segment takes seconds. */
    @Override
    long segmentBytes() {
        return TestAgents.SMALL_SEGMENT_BYTES;
    }
}
