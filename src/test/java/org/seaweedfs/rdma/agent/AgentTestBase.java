package org.seaweedfs.rdma.agent;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.AgentSetup;
import org.seaweedfs.rdma.volume.Fixtures;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One agent per test, serving a fresh copy of the fixtures in {@code tmp/volumes} (so {@code tmp} has room for
 * staging files on the same file system), stopped after the test.
 */
abstract class AgentTestBase {

    @TempDir
    Path tmp;
    private AgentHarness harness;

    AgentHarness start(AgentSetup setup) throws Exception {
        Path volumes = Fixtures.copyDir("volumes", Files.createDirectories(tmp.resolve("volumes")));
        harness = new AgentHarness(volumes, AgentTestClient.ucxSettings(), setup.and(base())
                .inSegmentsOf(segmentBytes()));
        return harness;
    }

    /** {@code agent:} lines every test of the class adds; a subclass runs the same tests another way (UCX copies). */
    String base() {
        return "";
    }

    /** The segments volumes are served in; a subclass serving copies makes them small ({@link TestAgents}). */
    long segmentBytes() {
        return TestAgents.SEGMENT_BYTES;
    }

    @AfterEach
    void stopAgent() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }
}
