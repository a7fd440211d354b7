package org.seaweedfs.rdma.internals;

import io.netty.util.internal.PlatformDependent;

/**
 * Raw native memory from the C allocator, without the zero-filling of {@link java.nio.ByteBuffer#allocateDirect}:
 * large blocks are fresh anonymous mappings that become resident only when touched.
 */
public final class NativeAllocator {

    private NativeAllocator() {
    }

    /** Whether raw allocation works in this JVM (Netty reaches {@code Unsafe}). */
    public static boolean available() {
        return PlatformDependent.hasUnsafe();
    }

    /** The address of {@code bytes} new bytes; free them with {@link #free}. */
    public static long allocate(long bytes) {
        return PlatformDependent.allocateMemory(bytes);
    }

    public static void free(long address) {
        PlatformDependent.freeMemory(address);
    }
}
