package org.seaweedfs.rdma.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.FixedReadPathStatus;
import org.seaweedfs.rdma.sidecar.ReadPathStatus;
import org.seaweedfs.rdma.sidecar.ReadPathStatus.AgentStatus;

class StatusHistoryTest {

    private final ReadMeters meters = ReadMeters.noop();
    private final FixedReadPathStatus status = new FixedReadPathStatus();

    @Test
    void eachSampleHoldsTheReadsOfItsOwnIntervalOnly() {
        meters.recordRead("rdma", "ok", 1_000_000); // before the history started: in no sample
        StatusHistory history = new StatusHistory(meters.tally(), status);
        status.set(ReadPathStatus.Health.HEALTHY, List.of(new AgentStatus("a:1", "up", "closed", List.of(1L), 1, null),
                new AgentStatus("b:2", "up", "open", List.of(2L), 1, null)));
        meters.recordRead("rdma", "ok", 2_000_000);
        meters.recordRead("rdma", "ok", 4_000_000);
        meters.recordRead("http", "not_found", 6_000_000);
        history.sample(1000);
        history.sample(6000);
        JsonArray samples = history.toJson().getJsonArray("samples");
        assertEquals(2, samples.size());
        JsonObject first = samples.getJsonObject(0);
        assertEquals(1000, first.getLong("at"));
        assertEquals(new JsonObject().put("rdma", 2).put("read-through", 0).put("http", 1).put("none", 0),
                first.getJsonObject("reads"));
        assertEquals(1, first.getLong("failed"));
        assertEquals(4.0, first.getDouble("meanMs"));
        assertEquals(6.0, first.getDouble("maxMs"));
        assertEquals(1, first.getInteger("agentsServing"), "b:2's open breaker lets no read through");
        JsonObject second = samples.getJsonObject(1);
        assertEquals(0, second.getJsonObject("reads").getLong("rdma"));
        assertEquals(0.0, second.getDouble("meanMs"));
        assertEquals(0.0, second.getDouble("maxMs"));
    }

    @Test
    void theRingKeepsTheLastTenMinutes() {
        StatusHistory history = new StatusHistory(meters.tally(), status);
        for (int i = 0; i < StatusHistory.SAMPLES + 7; i++) {
            meters.recordRead("rdma", "ok", 1000);
            history.sample(i);
        }
        JsonArray samples = history.toJson().getJsonArray("samples");
        assertEquals(StatusHistory.SAMPLES, samples.size());
        assertEquals(7, samples.getJsonObject(0).getLong("at"), "the oldest samples went first");
        assertEquals(StatusHistory.SAMPLES + 6, samples.getJsonObject(StatusHistory.SAMPLES - 1).getLong("at"));
        assertEquals(10 * 60, StatusHistory.SAMPLES * StatusHistory.INTERVAL_MS / 1000);
    }
}
