package org.seaweedfs.rdma.sidecar.memory;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One fixed-size piece of a {@link RegisteredBufferPool} slab. Taken by {@link RegisteredBufferPool#acquire} and
 * given back once by {@link #release()}; a second release is ignored (so a read that times out and the get that
 * finishes later cannot return it twice).
 */
public final class PooledBuffer {

    private final RegisteredBufferPool pool;
    private final ByteBuffer memory;
    private final long slabOffset;
    private final int slab;
    private final boolean large;
    private final AtomicBoolean taken = new AtomicBoolean();

    PooledBuffer(RegisteredBufferPool pool, ByteBuffer memory, int slab, long slabOffset, boolean large) {
        this.pool = pool;
        this.memory = memory;
        this.slab = slab;
        this.slabOffset = slabOffset;
        this.large = large;
    }

    /** The whole buffer (position 0, limit = capacity), a fresh view each call. */
    public ByteBuffer buffer() {
        return memory.duplicate().clear();
    }

    public int capacity() {
        return memory.capacity();
    }

    public boolean isLarge() {
        return large;
    }

    /** Native address of the buffer's first byte; the pool must be registered. */
    public long address() {
        return pool.slabAddress(slab) + slabOffset;
    }

    /** Returns the buffer to its pool; idempotent until the pool hands it out again. */
    public void release() {
        if (taken.compareAndSet(true, false)) {
            pool.giveBack(this);
        }
    }

    boolean take() {
        return taken.compareAndSet(false, true);
    }
}
