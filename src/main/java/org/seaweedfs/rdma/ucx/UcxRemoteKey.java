package org.seaweedfs.rdma.ucx;

import org.openucx.jucx.ucp.UcpRemoteKey;

import java.nio.ByteBuffer;

/**
 * A peer's memory key unpacked on one channel. It is valid only for gets on that channel, until every holder
 * released it ({@link UcxChannel#releaseRemoteKey}) or the channel closed. Event-loop lanes unpack their own copy
 * of the packed bytes on their endpoint ({@link EventLoopLane}) and close it once the key is released.
 */
public final class UcxRemoteKey {

    private final UcxChannel channel;
    private final ByteBuffer packed; // the cache key on the channel
    private UcpRemoteKey key; // owner thread only; null once closed
    private int holders; // owner thread only: unpacks not yet released
    private volatile boolean released;

    UcxRemoteKey(UcxChannel channel, ByteBuffer packed, UcpRemoteKey key) {
        this.channel = channel;
        this.packed = packed;
        this.key = key;
    }

    public UcxChannel channel() {
        return channel;
    }

    /** Whether the key may still be used: its channel is open and not every holder released it. */
    public boolean isValid() {
        return !released && channel.isOpen();
    }

    /** Null once released (new gets fail) or closed; gets already issued keep the native key until they finish. */
    UcpRemoteKey ucpKey() {
        return released ? null : key;
    }

    ByteBuffer packed() {
        return packed;
    }

    /** Any thread: released by its last holder or closed; new gets with it fail. */
    boolean isReleased() {
        return released;
    }

    /** Any thread: a direct copy of the packed bytes, for a lane to unpack on its own endpoint. */
    ByteBuffer packedDirect() {
        ByteBuffer source = packed.duplicate().clear();
        return ByteBuffer.allocateDirect(source.remaining()).put(source).flip();
    }

    int holders() {
        return holders;
    }

    void hold() {
        holders++;
    }

    /** Drops one holder; true when that was the last one (the key is then released for new gets). */
    boolean unhold() {
        if (holders > 0 && --holders == 0) {
            released = true;
            return true;
        }
        return false;
    }

    void close() {
        released = true;
        if (key != null) {
            key.close();
            key = null;
        }
    }
}
