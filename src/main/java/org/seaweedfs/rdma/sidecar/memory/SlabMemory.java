package org.seaweedfs.rdma.sidecar.memory;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.openucx.jucx.UcxUtils;
import org.seaweedfs.rdma.internals.NativeAllocator;
import org.seaweedfs.rdma.ucx.UcxEnvironment;

/**
 * Native memory for the buffer pool's slabs. {@link ByteBuffer#allocateDirect} zero-fills, which makes the whole pool
 * resident at start-up; memory from the allocator (large blocks are fresh anonymous mappings) becomes resident only
 * where a get writes, so a pool sized for the worst case costs only what the load touches. Freed explicitly once
 * nothing can write into it any more, or by a cleaner when its owner is collected (tests, embedders that forget).
 */
final class SlabMemory {

    private static final Cleaner CLEANER = Cleaner.create();

    private final List<ByteBuffer> slabs;
    private final Release release;

    /** The freeing action: holds only addresses, never the owner. */
    private static final class Release implements Runnable {
        private final long[] addresses;
        private final AtomicBoolean freed = new AtomicBoolean();

        Release(long[] addresses) {
            this.addresses = addresses;
        }

        @Override
        public void run() {
            if (freed.compareAndSet(false, true)) {
                for (long address : addresses) {
                    if (address != 0) {
                        NativeAllocator.free(address);
                    }
                }
            }
        }
    }

    private SlabMemory(List<ByteBuffer> slabs, long[] addresses, Object owner) {
        this.slabs = slabs;
        this.release = new Release(addresses);
        CLEANER.register(owner, release);
    }

    /** Slabs of the given sizes, freed with {@link #free()} or when {@code owner} is collected. */
    static SlabMemory allocate(int[] sizes, Object owner) {
        long[] addresses = new long[sizes.length];
        ByteBuffer[] slabs = new ByteBuffer[sizes.length];
        boolean lazy = NativeAllocator.available() && viewsAvailable();
        try {
            for (int i = 0; i < sizes.length; i++) {
                if (lazy) {
                    addresses[i] = NativeAllocator.allocate(sizes[i]);
                    slabs[i] = UcxUtils.getByteBufferView(addresses[i], sizes[i]);
                } else {
                    slabs[i] = ByteBuffer.allocateDirect(sizes[i]);
                }
            }
        } catch (RuntimeException | OutOfMemoryError e) {
            new Release(addresses).run();
            throw e;
        }
        return new SlabMemory(List.of(slabs), addresses, owner);
    }

    /** Buffer views of raw memory come from JUCX's native library, which may not be loaded yet. */
    private static boolean viewsAvailable() {
        try {
            UcxEnvironment.loadUcx();
            return true;
        } catch (LinkageError e) {
            return false; // no UCX: zeroed direct buffers (the pool cannot be registered anyway)
        }
    }

    List<ByteBuffer> slabs() {
        return slabs;
    }

    /** Frees the memory (once); no get or reader may use it afterwards. */
    void free() {
        release.run();
    }
}
