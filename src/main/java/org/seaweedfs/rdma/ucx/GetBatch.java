package org.seaweedfs.rdma.ucx;

import java.util.Arrays;

/**
 * Gets to post together on one channel ({@link UcxChannel#getAll}): each reads {@code length} bytes at a remote
 * address (described by its key) into local memory. On an event-loop lane they are posted implicit and completed by
 * one endpoint flush, so the batch pays one request and one callback, not one per get. Not thread-safe: filled and
 * posted by one caller.
 */
public final class GetBatch {

    private long[] remote;
    private UcxRemoteKey[] keys;
    private long[] local;
    private long[] lengths;
    private int size;
    private long bytes;

    public GetBatch(int capacity) {
        int n = Math.max(1, capacity);
        remote = new long[n];
        keys = new UcxRemoteKey[n];
        local = new long[n];
        lengths = new long[n];
    }

    /** Adds a get of {@code length} (positive) bytes at {@code remoteAddress} into {@code localAddress} (not 0). */
    public GetBatch add(long remoteAddress, UcxRemoteKey key, long localAddress, long length) {
        if (length <= 0 || localAddress == 0 || key == null) {
            throw new IllegalArgumentException("a get needs a key, a local address and a positive length, got key "
                    + key + ", address " + localAddress + ", length " + length);
        }
        if (size == remote.length) {
            int n = size * 2;
            remote = Arrays.copyOf(remote, n);
            keys = Arrays.copyOf(keys, n);
            local = Arrays.copyOf(local, n);
            lengths = Arrays.copyOf(lengths, n);
        }
        remote[size] = remoteAddress;
        keys[size] = key;
        local[size] = localAddress;
        lengths[size] = length;
        size++;
        bytes += length;
        return this;
    }

    public int size() {
        return size;
    }

    /** Bytes of all the gets. */
    public long bytes() {
        return bytes;
    }

    long remoteAddress(int i) {
        return remote[i];
    }

    UcxRemoteKey key(int i) {
        return keys[i];
    }

    long localAddress(int i) {
        return local[i];
    }

    long length(int i) {
        return lengths[i];
    }
}
