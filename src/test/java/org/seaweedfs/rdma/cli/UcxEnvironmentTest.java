package org.seaweedfs.rdma.cli;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UcxEnvironmentTest {

    @Test
    void onlyTheVariablesMissingFromTheEnvironmentAreAddedAndAnOperatorsOwnValueWins() {
        Map<String, String> missing = UcxEnvironment.missing(Map.of("UCX_LOG_FILE", "/var/log/ucx.log"));
        assertTrue(!missing.containsKey("UCX_LOG_FILE"), missing.toString());
        assertEquals("y", missing.get("UCX_TCP_CM_REUSEADDR"));
    }
}
