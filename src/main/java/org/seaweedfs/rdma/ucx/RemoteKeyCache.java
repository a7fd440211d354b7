package org.seaweedfs.rdma.ucx;

import org.openucx.jucx.ucp.UcpEndpoint;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A channel's unpacked remote keys, cached by their packed bytes and counted by holder; a released key is closed once
 * no get in flight on the owner path uses it. Owner thread only.
 */
final class RemoteKeyCache {

    private final UcxChannel channel;
    private final int maxKeys;
    private final Map<ByteBuffer, UcxRemoteKey> keys = new HashMap<>();
    private final List<UcxRemoteKey> retiring = new ArrayList<>(); // released, waiting for their gets to finish

    RemoteKeyCache(UcxChannel channel, int maxKeys) {
        this.channel = channel;
        this.maxKeys = maxKeys;
    }

    /** One more hold on the key for the packed bytes, unpacked once on {@code endpoint}; null when full. */
    UcxRemoteKey hold(byte[] packed, UcpEndpoint endpoint) {
        ByteBuffer content = ByteBuffer.wrap(packed);
        UcxRemoteKey key = keys.get(content);
        if (key == null) {
            if (keys.size() >= maxKeys) {
                return null;
            }
            ByteBuffer direct = ByteBuffer.allocateDirect(packed.length).put(packed).flip();
            key = new UcxRemoteKey(channel, content, endpoint.unpackRemoteKey(direct));
            keys.put(content, key);
        }
        key.hold();
        return key;
    }

    /**
     * Drops a hold; the last one takes the key out of the cache and closes it once no get in {@code pending} uses it.
     * Returns whether that was the last hold.
     */
    boolean release(UcxRemoteKey key, PendingOps pending) {
        if (keys.get(key.packed()) != key || !key.unhold()) {
            return false;
        }
        keys.remove(key.packed());
        retiring.add(key);
        closeRetired(pending);
        return true;
    }

    boolean hasRetiring() {
        return !retiring.isEmpty();
    }

    /** Closes released keys that no pending get still uses (a native key must outlive the gets issued with it). */
    void closeRetired(PendingOps pending) {
        retiring.removeIf(key -> {
            if (pending.uses(key)) {
                return false;
            }
            key.close();
            return true;
        });
    }

    /** Closes every key, released or not (the channel is closing). */
    void closeAll() {
        for (UcxRemoteKey key : keys.values()) {
            key.close();
        }
        keys.clear();
        retiring.forEach(UcxRemoteKey::close);
        retiring.clear();
    }

    int size() {
        return keys.size();
    }

    int holds() {
        return keys.values().stream().mapToInt(UcxRemoteKey::holders).sum();
    }
}
