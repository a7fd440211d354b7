package org.seaweedfs.rdma;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.agent.AgentMetrics;
import org.seaweedfs.rdma.metrics.RdmaMetrics;
import org.seaweedfs.rdma.sidecar.memory.PooledBuffer;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.ucx.UcxMetrics;

class RoleMetricsBinderTest {

    @Test
    void agentAndUcxCountersAreReadAtScrapeTime() {
        RdmaMetrics metrics = RdmaMetrics.create();
        AgentMetrics agent = new AgentMetrics();
        UcxMetrics ucx = new UcxMetrics();
        RoleMetricsBinder binder = new RoleMetricsBinder(metrics.registry());
        binder.bindAgent(agent);
        binder.bindUcx("sidecar", ucx);
        agent.framesReceived().add(3);
        agent.readThroughBytes().add(4096);
        agent.polls().add(2);
        ucx.gets().add(5);
        ucx.laneGets().add(2);
        ucx.errors().increment();
        String text = metrics.scrape();
        assertTrue(text.contains("seaweedfs_rdma_agent_frames_total{direction=\"received\"} 3"), text);
        assertTrue(text.contains("seaweedfs_rdma_agent_read_through_bytes_total 4096"), text);
        assertTrue(text.contains("seaweedfs_rdma_agent_polls_total 2"), text);
        assertTrue(text.contains("seaweedfs_rdma_agent_volumes 0"), text);
        assertTrue(text.contains("seaweedfs_rdma_agent_volume_copy_bytes 0"), text);
        assertTrue(text.contains("seaweedfs_rdma_ucx_operations_total{worker=\"sidecar\"} 5"), text);
        assertTrue(text.contains("seaweedfs_rdma_ucx_errors_total{worker=\"sidecar\"} 1"), text);
        assertTrue(text.contains("seaweedfs_rdma_ucx_lane_gets_total{worker=\"sidecar\"} 2"), text);
        assertTrue(text.contains("seaweedfs_rdma_ucx_lanes{worker=\"sidecar\"} 0"), text);
        ucx.gets().add(4);
        assertTrue(metrics.scrape().contains("seaweedfs_rdma_ucx_operations_total{worker=\"sidecar\"} 9"));
    }

    @Test
    void theReadBuffersInUseAndFreeAreReadAtScrapeTime() {
        RdmaMetrics metrics = RdmaMetrics.create();
        RegisteredBufferPool pool = new RegisteredBufferPool(new RegisteredBufferPool.Settings(4096, 4, 65536, 2));
        try {
            new RoleMetricsBinder(metrics.registry()).bindBufferPool(pool);
            PooledBuffer small = pool.acquire(100);
            PooledBuffer large = pool.acquire(10_000);
            String text = metrics.scrape();
            assertTrue(text.contains("seaweedfs_rdma_buffer_pool_in_use 2.0"), text);
            assertTrue(text.contains("seaweedfs_rdma_buffer_pool_free{size=\"small\"} 3.0"), text);
            assertTrue(text.contains("seaweedfs_rdma_buffer_pool_free{size=\"large\"} 1.0"), text);
            assertTrue(text.contains("seaweedfs_rdma_buffer_pool_bytes 147456.0"), text);
            small.release();
            large.release();
            assertTrue(metrics.scrape().contains("seaweedfs_rdma_buffer_pool_in_use 0.0"));
        } finally {
            pool.free();
        }
    }
}
