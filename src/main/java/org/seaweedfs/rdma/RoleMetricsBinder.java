package org.seaweedfs.rdma;

import io.micrometer.core.instrument.FunctionCounter;
import java.lang.management.ManagementFactory;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.concurrent.atomic.LongAdder;
import org.seaweedfs.rdma.agent.AgentMetrics;
import org.seaweedfs.rdma.sidecar.fallback.VolumeServerSource;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.ucx.UcxMetrics;

/**
 * Binds the plain counters the agent and the UCX workers keep (LongAdders, readable from any thread) to
 * Micrometer, read at scrape time. The counters' owners outlive the bindings (they live as long as their
 * verticles), so the registry's weak references to them hold. It lives in the composition root so that
 * {@code metrics} knows no component (no package cycle).
 */
public final class RoleMetricsBinder {

    private final MeterRegistry registry;

    public RoleMetricsBinder(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The agent role: control-protocol traffic, index following, and the volumes and needles it serves. */
    public void bindAgent(AgentMetrics agent) {
        counter("seaweedfs.rdma.agent.frames", "Control frames", Tags.of("direction", "received"),
                agent.framesReceived());
        counter("seaweedfs.rdma.agent.frames", "Control frames", Tags.of("direction", "sent"), agent.framesSent());
        counter("seaweedfs.rdma.agent.bad.frames", "Control frames that failed to decode", Tags.empty(),
                agent.badFrames());
        counter("seaweedfs.rdma.agent.errors.sent", "Error replies sent", Tags.empty(), agent.errorsSent());
        counter("seaweedfs.rdma.agent.hellos", "Hellos answered", Tags.empty(), agent.hellos());
        counter("seaweedfs.rdma.agent.unauthorized", "Hellos refused for a missing or wrong token", Tags.empty(),
                agent.unauthorized());
        counter("seaweedfs.rdma.agent.lookups", "Needle lookups answered", Tags.empty(), agent.lookups());
        counter("seaweedfs.rdma.agent.index.requests", "Handles of exposed needle indexes asked for (a sidecar starts"
                + " reading a volume's index one-sidedly)", Tags.empty(), agent.indexRequests());
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            // Per read: its rate over the sidecars' read rate (one-sided reads reach no counter of the agent's).
            FunctionCounter.builder("seaweedfs.rdma.agent.cpu", os, o -> o.getProcessCpuTime() / 1e9)
                    .baseUnit("seconds").description("CPU time the agent process used, all threads")
                    .register(registry);
        }
        counter("seaweedfs.rdma.agent.syncs", "Index sync requests answered", Tags.empty(), agent.syncs());
        counter("seaweedfs.rdma.agent.read.throughs", "Reads the agent copied over its control channel", Tags.empty(),
                agent.readThroughs());
        counter("seaweedfs.rdma.agent.read.through.bytes", "Bytes the agent copied for read-throughs", Tags.empty(),
                agent.readThroughBytes());
        counter("seaweedfs.rdma.agent.pushes", "Frames pushed unasked (index increments, volume changes)", Tags.empty(),
                agent.pushes());
        counter("seaweedfs.rdma.agent.remaps", "Volume segments mapped after start-up (growth)", Tags.empty(),
                agent.remaps());
        counter("seaweedfs.rdma.agent.reopens", "Volumes reopened under a new epoch (compaction)", Tags.empty(),
                agent.reopens());
        counter("seaweedfs.rdma.agent.polls", "Passes over the volume directories (every 250 ms)", Tags.empty(),
                agent.polls());
        FunctionCounter.builder("seaweedfs.rdma.agent.lost.pages", agent, a -> (double) a.lostPages())
                .description("Pages of mapped .dat files that faulted (truncated in place, I/O error) and were replaced"
                        + " by zero pages; their volume is reopened").register(registry);
        Gauge.builder("seaweedfs.rdma.agent.volumes", agent, AgentMetrics::volumes)
                .description("Volumes the agent serves").register(registry);
        Gauge.builder("seaweedfs.rdma.agent.needles", agent,
                        a -> a.needlesPerVolume().values().stream().mapToLong(Integer::longValue).sum())
                .description("Live needles in the agent's needle maps").register(registry);
        Gauge.builder("seaweedfs.rdma.agent.volume.copy.bytes", agent, AgentMetrics::volumeCopyBytes)
                .description("UCX-allocated memory held for volume copies (agent.volumeMemory: ucx)")
                .baseUnit("bytes").register(registry);
    }

    /** One UCX worker ({@code worker} names its role): gets, frames, errors, channels. */
    public void bindUcx(String worker, UcxMetrics ucx) {
        Tags tags = Tags.of("worker", worker);
        counter("seaweedfs.rdma.ucx.operations", "UCX gets completed", tags, ucx.gets());
        counter("seaweedfs.rdma.ucx.errors", "UCX operations failed", tags, ucx.errors());
        counter("seaweedfs.rdma.ucx.get.bytes", "Bytes moved by UCX gets", tags, ucx.getBytes());
        counter("seaweedfs.rdma.ucx.frames", "Control frames over UCX", tags.and("direction", "sent"),
                ucx.framesSent());
        counter("seaweedfs.rdma.ucx.frames", "Control frames over UCX", tags.and("direction", "received"),
                ucx.framesReceived());
        counter("seaweedfs.rdma.ucx.frame.bytes", "Control frame bytes over UCX", tags.and("direction", "sent"),
                ucx.frameBytesSent());
        counter("seaweedfs.rdma.ucx.frame.bytes", "Control frame bytes over UCX", tags.and("direction", "received"),
                ucx.frameBytesReceived());
        counter("seaweedfs.rdma.ucx.channels", "UCX channels", tags.and("event", "opened"), ucx.channelsOpened());
        counter("seaweedfs.rdma.ucx.channels", "UCX channels", tags.and("event", "closed"), ucx.channelsClosed());
        counter("seaweedfs.rdma.ucx.lane.gets", "UCX gets issued and completed on an event loop's own worker (lanes)",
                tags, ucx.laneGets());
        counter("seaweedfs.rdma.ucx.lane.copied.gets", "Lane gets served by one copy from a same-host peer's"
                + " shared memory mapped into this process", tags, ucx.laneCopiedGets());
        counter("seaweedfs.rdma.ucx.lane.views", "Reads that used a same-host peer's shared memory where it lies"
                + " (mapped into this process): no get and no copy", tags, ucx.laneViews());
        counter("seaweedfs.rdma.ucx.lane.file.views", "Reads that used a same-host agent's volume file where it lies"
                + " (mapped into this process): no get, no copy, no agent CPU", tags, ucx.laneFileViews());
        Gauge.builder("seaweedfs.rdma.ucx.lanes", ucx, UcxMetrics::lanes)
                .description("Event-loop lanes open (an endpoint per event loop and channel)").tags(tags)
                        .register(registry);
        Gauge.builder("seaweedfs.rdma.ucx.lane.remote.keys", ucx, UcxMetrics::laneRemoteKeys)
                .description("Remote keys unpacked on lanes").tags(tags).register(registry);
    }

    /**
     * The sidecar's registered read buffers: handed out (reads in flight, answers being sent, lent needles) and free
     * by size. A read that finds none of its size free fails at once, retriably (503): raise
     * {@code sidecar.bufferPool.totalBytes} when the free ones stay near zero.
     */
    public void bindBufferPool(RegisteredBufferPool pool) {
        Gauge.builder("seaweedfs.rdma.buffer.pool.in.use", pool, RegisteredBufferPool::inUse)
                .description("Registered read buffers handed out and not yet given back").register(registry);
        Gauge.builder("seaweedfs.rdma.buffer.pool.free", pool, RegisteredBufferPool::freeSmall)
                .description("Registered read buffers free, by size").tags("size", "small").register(registry);
        Gauge.builder("seaweedfs.rdma.buffer.pool.free", pool, RegisteredBufferPool::freeLarge)
                .description("Registered read buffers free, by size").tags("size", "large").register(registry);
        Gauge.builder("seaweedfs.rdma.buffer.pool", pool, p -> p.settings().totalBytes()).baseUnit("bytes")
                .description("Registered memory of the read buffers").register(registry);
    }

    /** The sidecar's HTTP fallback: client hints it refused to follow (sidecar.volumeServers). */
    public void bindVolumeServerSource(VolumeServerSource source) {
        FunctionCounter.builder("seaweedfs.rdma.read.hints.refused", source, s -> (double) s.refusedHints())
                .description("volume_server hints ignored: neither in sidecar.volumeServers nor listed by the master")
                .register(registry);
    }

    private void counter(String name, String description, Tags tags, LongAdder adder) {
        FunctionCounter.builder(name, adder, LongAdder::sum).description(description).tags(tags).register(registry);
    }
}
