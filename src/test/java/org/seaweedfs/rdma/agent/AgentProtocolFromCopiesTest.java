package org.seaweedfs.rdma.agent;

/**
 * AgentProtocolTest's tests with agent.volumeMemory: ucx: the control protocol and gets (every live record, small
 * segments, lookups and read-through from the copy) served from UCX-allocated copies.
 */
class AgentProtocolFromCopiesTest extends AgentProtocolTest {

    @Override
    String base() {
        return VolumeCopyTest.COPIES;
    }

    /** Several copied segments in a few KiB (every record, records across segments): copying 1 GiB takes seconds. */
    @Override
    long segmentBytes() {
        return TestAgents.SMALL_SEGMENT_BYTES;
    }
}
