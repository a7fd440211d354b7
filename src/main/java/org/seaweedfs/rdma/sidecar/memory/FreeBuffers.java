package org.seaweedfs.rdma.sidecar.memory;

/**
 * The free buffers of one size class, last in first out: the buffer released last is handed out next, so a
 * steady load keeps reusing the few buffers it needs (warm in the caches, already resident) and the rest of the
 * pool is never touched, never resident. A FIFO queue would cycle through, and page in, the whole pool.
 * Thread-safe; allocates nothing after construction. Critical sections are a few instructions, so a plain monitor.
 */
final class FreeBuffers {

    private final PooledBuffer[] stack;
    private int size;

    FreeBuffers(int capacity) {
        this.stack = new PooledBuffer[capacity];
    }

    /** Adds a buffer; more than the capacity would mean a buffer was given back twice. */
    synchronized void push(PooledBuffer buffer) {
        if (size == stack.length) {
            throw new IllegalStateException("more buffers given back than the pool holds");
        }
        stack[size++] = buffer;
    }

    /** The most recently pushed free buffer, or null when none is free. */
    synchronized PooledBuffer pop() {
        if (size == 0) {
            return null;
        }
        PooledBuffer buffer = stack[--size];
        stack[size] = null;
        return buffer;
    }

    synchronized int size() {
        return size;
    }
}
