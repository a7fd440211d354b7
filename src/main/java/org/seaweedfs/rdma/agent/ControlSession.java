package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.protocol.ControlCodec;
import org.seaweedfs.rdma.ucx.UcxChannel;

import java.util.HashMap;
import java.util.Map;

/**
 * One sidecar's channel: whether it completed the handshake, and for each volume it mirrors to the end, the epoch
 * and .idx position its mirror has reached (where the next push starts). Confined to the agent's context.
 */
final class ControlSession {

    /** A mirror of a volume epoch, complete up to {@code position}. */
    record Mirror(long epoch, long position) {
    }

    private final UcxChannel channel;
    private final Map<Long, Mirror> mirrors = new HashMap<>();
    private boolean handshaken;
    private int repliesInFlight;
    private String clientId;
    /** Frames in the version the handshake agreed on (the newest until then: Hello and Error are frozen). */
    private ControlCodec codec;

    ControlSession(UcxChannel channel, ControlCodec codec) {
        this.channel = channel;
        this.codec = codec;
    }

    ControlCodec codec() {
        return codec;
    }

    UcxChannel channel() {
        return channel;
    }

    boolean handshaken() {
        return handshaken;
    }

    void handshakeDone(String client, ControlCodec agreed) {
        handshaken = true;
        clientId = client;
        codec = agreed;
    }

    /** Large replies queued for sending on this channel and not yet sent. */
    int repliesInFlight() {
        return repliesInFlight;
    }

    void replyQueued() {
        repliesInFlight++;
    }

    void replySent() {
        repliesInFlight--;
    }

    Mirror mirror(long volumeId) {
        return mirrors.get(volumeId);
    }

    void mirrored(long volumeId, long epoch, long position) {
        mirrors.put(volumeId, new Mirror(epoch, position));
    }

    void forget(long volumeId) {
        mirrors.remove(volumeId);
    }

    @Override
    public String toString() {
        return (clientId == null ? "unidentified sidecar" : "sidecar '" + clientId + "'") + " on " + channel;
    }
}
