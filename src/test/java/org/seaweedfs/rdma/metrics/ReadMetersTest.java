package org.seaweedfs.rdma.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ReadMetersTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ReadMeters meters = new ReadMeters(registry);

    @Test
    void readsAreTimedPerSourceAndResult() {
        meters.recordRead("rdma", "ok", 2_000);
        meters.recordRead("rdma", "ok", 4_000);
        meters.recordRead("http", "not_found", 1_000);

        var ok = registry.get("seaweedfs.rdma.read.latency").tag("source", "rdma").tag("result", "ok").timer();
        assertEquals(2, ok.count());
        assertEquals(6_000, ok.totalTime(TimeUnit.NANOSECONDS), 0.5);
        assertEquals(1, registry.get("seaweedfs.rdma.read.latency").tag("source", "http").tag("result", "not_found")
                .timer().count());
        assertNull(registry.find("seaweedfs.rdma.read.latency").tag("source", "http").tag("result", "ok").timer());
    }

    @Test
    void unknownTagValuesAreRecordedAsOther() {
        meters.recordRead("0123456789abcdef", "weird", 1);
        meters.recordRead(null, null, 1);
        meters.recordRead("none", ReadMeters.resultOf(413), 1);

        assertEquals(2, registry.get("seaweedfs.rdma.read.latency").tag("source", "other").tag("result", "other")
                .timer().count());
        assertEquals(1, registry.get("seaweedfs.rdma.read.latency").tag("source", "none").tag("result", "too_large")
                .timer().count());
    }

    @Test
    void valuesEqualToAllowedOnesButNotTheSameStringsFindTheirTags() {
        String source = new String(new char[] {'r', 'd', 'm', 'a'});
        String result = new StringBuilder("k").insert(0, 'o').toString();
        meters.recordRead(source, result, 5);
        meters.recordBytesServed(source, 9);

        assertEquals(1, registry.get("seaweedfs.rdma.read.latency").tag("source", "rdma").tag("result", "ok")
                .timer().count());
        assertNull(registry.find("seaweedfs.rdma.read.latency").tag("source", "other").timer());
        assertEquals(9, registry.get("seaweedfs.rdma.read.bytes").tag("source", "rdma").summary().totalAmount(), 0.5);
    }

    @Test
    void bytesServedAreSummedPerSource() {
        meters.recordBytesServed("rdma", 4096);
        meters.recordBytesServed("rdma", 100);
        meters.recordBytesServed("elsewhere", 7);

        var rdma = registry.get("seaweedfs.rdma.read.bytes").tag("source", "rdma").summary();
        assertEquals(2, rdma.count());
        assertEquals(4196, rdma.totalAmount(), 0.5);
        assertEquals(7, registry.get("seaweedfs.rdma.read.bytes").tag("source", "other").summary().totalAmount(), 0.5);
    }

    @Test
    void aBatchIsOneTimedSampleAndItsMembersAreCountedByTheirEnds() {
        BatchCounts counts = new BatchCounts();
        counts.served("rdma", 4096);
        counts.served("rdma", 100);
        counts.read("none", ReadMeters.resultOf(404));
        counts.served("elsewhere", 7);
        assertEquals(4, counts.members());

        meters.recordBatch(ReadMeters.HTTP, counts, 2_000_000);
        meters.recordBatch(ReadMeters.EVENT_BUS, new BatchCounts(), 1_000);

        var http = registry.get("seaweedfs.rdma.read.batch").tag("face", "http").timer();
        assertEquals(1, http.count());
        assertEquals(2_000_000, http.totalTime(TimeUnit.NANOSECONDS), 0.5);
        assertEquals(1, registry.get("seaweedfs.rdma.read.batch").tag("face", "eventbus").timer().count());
        assertEquals(2, registry.get("seaweedfs.rdma.read.batch.needles").tag("source", "rdma").tag("result", "ok")
                .counter().count(), 0.5);
        assertEquals(1, registry.get("seaweedfs.rdma.read.batch.needles").tag("source", "none")
                .tag("result", "not_found").counter().count(), 0.5);
        assertEquals(1, registry.get("seaweedfs.rdma.read.batch.needles").tag("source", "other").counter().count(),
                0.5);
        assertEquals(4196, registry.get("seaweedfs.rdma.read.batch.bytes").tag("source", "rdma").counter().count(),
                0.5);
        assertNull(registry.find("seaweedfs.rdma.read.latency").timer(), "members are not timed one by one");
        assertNull(registry.find("seaweedfs.rdma.read.bytes").summary());

        ReadTally tally = meters.tally();
        assertEquals(4, tally.reads());
        assertEquals(1, tally.failed());
        assertEquals(2L, tally.bySource().get("rdma"));
        assertEquals(1L, tally.bySource().get("other"));
        assertEquals(8_000_000, tally.totalNanos(), "each member took the batch's time");
        assertEquals(2_000_000, tally.takeMaxNanos());
    }
}
