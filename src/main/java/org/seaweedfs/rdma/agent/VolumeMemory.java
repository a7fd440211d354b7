package org.seaweedfs.rdma.agent;

import java.util.Locale;

/** Where the agent keeps the {@code .dat} bytes it serves ({@code agent.volumeMemory}). */
public enum VolumeMemory {
    /**
     * The file's read-only mappings, registered with UCX: no copy, any volume size. Read one-sidedly by RDMA NICs;
     * without one, UCX 1.13 emulates gets on such memory over TCP lanes served by the agent's UCX thread.
     */
    MAPPED,
    /**
     * A copy of the file in memory UCX allocated: same-host sidecars read it one-sidedly over shared memory
     * (sysv/posix) with no agent CPU per read. Costs RAM, bounded by {@code agent.volumeMemoryLimit}.
     */
    UCX;

    /** As written in the configuration. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
