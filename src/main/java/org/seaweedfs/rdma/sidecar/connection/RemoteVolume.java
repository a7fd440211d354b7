package org.seaweedfs.rdma.sidecar.connection;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.seaweedfs.rdma.protocol.Segment;
import org.seaweedfs.rdma.protocol.EcShard;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.ucx.PeerFile;
import org.seaweedfs.rdma.ucx.UcxRemoteKey;

/**
 * What one connection knows of one agent volume: its list entry, each segment's remote key unpacked on the
 * connection's channel, and where its needles' locations are cached. Immutable; a grown volume gets a new instance
 * sharing the same {@link VolumeLocations}, a compacted one (new epoch) new ones.
 */
public final class RemoteVolume {

    private final VolumeInfo info;
    private final List<UcxRemoteKey> keys;
    private final List<PeerFile> files; // per .dat segment: the agent's file as mapped here (null entries: none)
    private final VolumeLocations locations;
    private final String agent;
    private final String where;

    /**
     * @param files per .dat segment, the range of the agent's file a reader on its host maps (null entries where not),
     *              each held by this until released; empty when none is
     * @param agent the agent's address, for messages
     */
    RemoteVolume(VolumeInfo info, List<UcxRemoteKey> keys, List<PeerFile> files, VolumeLocations locations,
                 String agent) {
        if (keys.size() != info.keyedSegments().size() || locations.epoch() != info.epoch()
                || !files.isEmpty() && files.size() != info.segments().size()) {
            throw new IllegalArgumentException("volume " + info.volumeId()
                    + ": keys or locations do not match the volume");
        }
        this.info = info;
        this.keys = List.copyOf(keys);
        this.files = Collections.unmodifiableList(new ArrayList<>(files)); // List.copyOf refuses null entries
        this.locations = locations;
        this.agent = agent;
        this.where = "volume " + info.volumeId() + " of agent " + agent; // built once, not per read
    }

    /** "volume V of agent A", for messages about its records. */
    public String where() {
        return where;
    }

    /** The agent's address (its peer's name), which the volume is read from. */
    public String agent() {
        return agent;
    }

    public VolumeInfo info() {
        return info;
    }

    public long volumeId() {
        return info.volumeId();
    }

    public long epoch() {
        return info.epoch();
    }

    public int version() {
        return info.version();
    }

    /** The cached locations of this volume epoch's needles (and their lookup at the agent on a miss). */
    public VolumeLocations locations() {
        return locations;
    }

    /**
     * Every segment's key, in {@link VolumeInfo#keyedSegments} order (the .dat's, then any EC shards'); each one a
     * hold on the channel, released with this.
     */
    List<UcxRemoteKey> keys() {
        return keys;
    }

    /** Each .dat segment's range of the agent's file as mapped here (null entries where not); empty when none. */
    List<PeerFile> files() {
        return files;
    }

    /**
     * The agent's file as a same-host reader maps it for this .dat segment; null when it cannot, or the segment is
     * not this volume's (a longer volume's, when a growth is published).
     */
    public PeerFile fileOf(Segment segment) {
        return segment.index() < files.size() ? files.get(segment.index()) : null;
    }

    /** The remote key of a segment of this volume. */
    public UcxRemoteKey keyOf(Segment segment) {
        return keys.get(segment.index());
    }

    /** The remote key of a segment of one of this EC volume's shards (keys follow {@link VolumeInfo#keyedSegments}). */
    public UcxRemoteKey keyOf(EcShard shard, Segment segment) {
        int at = info.segments().size();
        for (EcShard listed : info.ec().shards()) {
            if (listed.shardId() == shard.shardId()) {
                return keys.get(at + segment.index());
            }
            at += listed.segments().size();
        }
        throw new IllegalArgumentException("shard " + shard.shardId() + " is not listed in " + where);
    }
}
