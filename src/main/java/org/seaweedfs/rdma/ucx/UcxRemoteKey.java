package org.seaweedfs.rdma.ucx;

import org.openucx.jucx.ucp.UcpRemoteKey;

/**
 * A peer's memory key unpacked on one channel. It is valid only for gets on that channel and is closed with it.
 */
public final class UcxRemoteKey {

    private final UcxChannel channel;
    private UcpRemoteKey key; // owner thread only; null once closed

    UcxRemoteKey(UcxChannel channel, UcpRemoteKey key) {
        this.channel = channel;
        this.key = key;
    }

    public UcxChannel channel() {
        return channel;
    }

    /** Whether the key may still be used (its channel is open). */
    public boolean isValid() {
        return channel.isOpen();
    }

    UcpRemoteKey ucpKey() {
        return key;
    }

    void close() {
        if (key != null) {
            key.close();
            key = null;
        }
    }
}
