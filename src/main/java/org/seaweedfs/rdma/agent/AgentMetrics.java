package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.ucx.SigbusGuard;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The agent's counters, safe to read from any thread (the metrics binder reads them). Volume gauges are published
 * as an immutable snapshot after every change on the agent's context.
 */
public final class AgentMetrics {

    private final LongAdder framesReceived = new LongAdder();
    private final LongAdder framesSent = new LongAdder();
    private final LongAdder badFrames = new LongAdder();
    private final LongAdder errorsSent = new LongAdder();
    private final LongAdder hellos = new LongAdder();
    private final LongAdder unauthorized = new LongAdder();
    private final LongAdder lookups = new LongAdder();
    private final LongAdder lookupBatches = new LongAdder();
    private final LongAdder indexRequests = new LongAdder();
    private final LongAdder syncs = new LongAdder();
    private final LongAdder readThroughs = new LongAdder();
    private final LongAdder readThroughBytes = new LongAdder();
    private final LongAdder pushes = new LongAdder();
    private final LongAdder remaps = new LongAdder();
    private final LongAdder reopens = new LongAdder();
    private final LongAdder overloaded = new LongAdder();
    private final LongAdder polls = new LongAdder();
    private volatile Map<Long, Integer> needlesPerVolume = Map.of();
    private volatile List<AgentVolumeStatus> volumeStatus = List.of();
    private volatile List<String> sidecars = List.of();
    private volatile long volumeCopyBytes;

    /** Control frames received. */
    public LongAdder framesReceived() {
        return framesReceived;
    }

    /** Control frames sent (replies and pushes). */
    public LongAdder framesSent() {
        return framesSent;
    }

    /** Frames that failed to decode (malformed, oversized, wrong version). */
    public LongAdder badFrames() {
        return badFrames;
    }

    /** Error replies sent, bad frames included. */
    public LongAdder errorsSent() {
        return errorsSent;
    }

    public LongAdder hellos() {
        return hellos;
    }

    /** Hellos refused for a missing or wrong token. */
    public LongAdder unauthorized() {
        return unauthorized;
    }

    /** Needle ids looked up (one per Lookup, one per id of a LookupBatch). */
    public LongAdder lookups() {
        return lookups;
    }

    /** LookupBatch frames answered. */
    public LongAdder lookupBatches() {
        return lookupBatches;
    }

    /** IndexRequests answered (a sidecar starting to read a volume's index one-sidedly, or asking again). */
    public LongAdder indexRequests() {
        return indexRequests;
    }

    /** SyncRequests answered (each one frame). */
    public LongAdder syncs() {
        return syncs;
    }

    public LongAdder readThroughs() {
        return readThroughs;
    }

    public LongAdder readThroughBytes() {
        return readThroughBytes;
    }

    /** Frames pushed unasked (SyncEntries increments and VolumeChanged). */
    public LongAdder pushes() {
        return pushes;
    }

    /** Segments mapped and registered after start-up (growth). */
    public LongAdder remaps() {
        return remaps;
    }

    /** Volumes reopened under a new epoch (compaction). */
    public LongAdder reopens() {
        return reopens;
    }

    /** Pages of mapped .dat files replaced by zero pages after a SIGBUS (truncated in place or unreadable). */
    public long lostPages() {
        return SigbusGuard.faults();
    }

    /** Requests answered OVERLOADED because their channel had its bound of large replies queued. */
    public LongAdder overloaded() {
        return overloaded;
    }

    /** Passes over the volume directories completed after start-up (one every {@link AgentVerticle#POLL_INTERVAL}). */
    public LongAdder polls() {
        return polls;
    }

    /** Volumes served now. */
    public int volumes() {
        return needlesPerVolume.size();
    }

    /** Live needles per served volume id, a snapshot. */
    public Map<Long, Integer> needlesPerVolume() {
        return needlesPerVolume;
    }

    /**
     * Bytes of UCX-allocated memory held for volume copies (agent.volumeMemory: ucx): served segments with their
     * spare tail capacity, and retired copies until they are freed.
     */
    public long volumeCopyBytes() {
        return volumeCopyBytes;
    }

    void volumeCopyBytes(long bytes) {
        volumeCopyBytes = bytes;
    }

    /** The served volumes (id order), a snapshot. */
    public List<AgentVolumeStatus> volumeStatus() {
        return volumeStatus;
    }

    /** The sidecars connected now (their ids and channels; "unidentified" before their Hello), a snapshot. */
    public List<String> sidecars() {
        return sidecars;
    }

    void publishVolumes(Map<Long, Integer> snapshot, List<AgentVolumeStatus> status) {
        needlesPerVolume = Map.copyOf(snapshot);
        volumeStatus = List.copyOf(status);
    }

    void publishSidecars(List<String> connected) {
        sidecars = List.copyOf(connected);
    }
}
