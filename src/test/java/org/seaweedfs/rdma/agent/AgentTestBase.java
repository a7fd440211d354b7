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
        harness = new AgentHarness(tmp, s -> tune.apply(base(s)));
        return harness;
    }

    /** What every test of the class starts from; a subclass runs the same tests another way (e.g. UCX copies). */
    AgentSettings base(AgentSettings defaults) {
        return defaults;
    }

    @AfterEach
    void stopAgent() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }
}
