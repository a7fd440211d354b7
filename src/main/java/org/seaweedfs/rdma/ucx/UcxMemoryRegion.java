package org.seaweedfs.rdma.ucx;

import org.openucx.jucx.ucp.UcpMemory;

import java.nio.ByteBuffer;

/**
 * Memory registered with a worker's UCX context: the remaining bytes of a direct or mapped buffer. The region holds
 * the buffer strongly, so the memory cannot be freed or unmapped while it is registered.
 */
public final class UcxMemoryRegion {

    private final ByteBuffer buffer;
    private final long address;
    private final long length;
    private final byte[] packedRemoteKey;
    private volatile UcpMemory memory;

    UcxMemoryRegion(ByteBuffer buffer, UcpMemory memory, long address, long length, byte[] packedRemoteKey) {
        this.buffer = buffer;
        this.memory = memory;
        this.address = address;
        this.length = length;
        this.packedRemoteKey = packedRemoteKey;
    }

    /** Native address of the first registered byte (the buffer's position at registration). */
    public long address() {
        return address;
    }

    public long length() {
        return length;
    }

    /** The packed remote key a peer unpacks to read this region; a fresh copy each call. */
    public byte[] packedRemoteKey() {
        return packedRemoteKey.clone();
    }

    /** The registered buffer (the same object that was registered). */
    public ByteBuffer buffer() {
        return buffer;
    }

    public boolean isRegistered() {
        return memory != null;
    }

    /** Whether {@code [addr, addr+len)} lies inside this region. */
    public boolean contains(long addr, long len) {
        return len >= 0 && addr >= address && addr - address <= length - len;
    }

    /** Owner thread: releases the registration once. */
    void deregister() {
        UcpMemory m = memory;
        if (m != null) {
            memory = null;
            m.deregister();
        }
    }

    @Override
    public String toString() {
        return "UcxMemoryRegion[0x" + Long.toHexString(address) + ", " + length + " bytes"
                + (isRegistered() ? "" : ", deregistered") + "]";
    }
}
