package org.seaweedfs.rdma.internals;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;

/**
 * Frees a direct or mapped buffer's memory at once, through {@code sun.misc.Unsafe.invokeCleaner} (the JDK's one way
 * to unmap a file before the garbage collector collects the buffer). Where the JVM does not allow it, the buffer is
 * left to the garbage collector.
 */
public final class DirectBuffers {

    private static final Method INVOKE_CLEANER;
    private static final Object UNSAFE;

    static {
        Method cleaner = null;
        Object unsafe = null;
        try {
            Class<?> type = Class.forName("sun.misc.Unsafe");
            Field field = type.getDeclaredField("theUnsafe");
            field.setAccessible(true);
            unsafe = field.get(null);
            cleaner = type.getMethod("invokeCleaner", ByteBuffer.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // the garbage collector frees instead
        }
        INVOKE_CLEANER = cleaner;
        UNSAFE = unsafe;
    }

    private DirectBuffers() {
    }

    /**
     * Frees {@code buffer}'s memory now (a mapped buffer is unmapped); no thread may touch it afterwards. Returns
     * false when the JVM does not allow it (the garbage collector frees it later).
     */
    public static boolean release(ByteBuffer buffer) {
        if (INVOKE_CLEANER == null) {
            return false;
        }
        try {
            INVOKE_CLEANER.invoke(UNSAFE, buffer);
            return true;
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }
}
