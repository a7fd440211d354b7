package org.seaweedfs.rdma.agent;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.function.UnaryOperator;

/** One agent per test, serving a fresh copy of the fixtures, stopped after the test. */
abstract class AgentTestBase {

    @TempDir
    Path tmp;
    private AgentHarness harness;

    AgentHarness start(UnaryOperator<AgentSettings> tune) throws Exception {
        harness = new AgentHarness(tmp, tune);
        return harness;
    }

    @AfterEach
    void stopAgent() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }
}
