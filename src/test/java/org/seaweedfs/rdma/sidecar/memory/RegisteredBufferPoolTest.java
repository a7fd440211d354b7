package org.seaweedfs.rdma.sidecar.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class RegisteredBufferPoolTest {

    private final RegisteredBufferPool pool =
            new RegisteredBufferPool(new RegisteredBufferPool.Settings(4096, 3, 16384, 2));

    @Test
    void smallRequestsTakeSmallBuffersThenLargeOnesThenNothing() {
        List<PooledBuffer> got = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            PooledBuffer b = pool.acquire(100);
            assertNotNull(b, "buffer " + i);
            assertEquals(i < 3 ? 4096 : 16384, b.capacity());
            got.add(b);
        }
        assertNull(pool.acquire(100));
        assertEquals(1, pool.exhausted());
        assertEquals(5, pool.inUse());
        got.forEach(PooledBuffer::release);
        assertEquals(0, pool.inUse());
        assertEquals(3, pool.freeSmall());
        assertEquals(2, pool.freeLarge());
    }

    @Test
    void theBufferReleasedLastIsHandedOutNext() {
        PooledBuffer a = pool.acquire(100);
        PooledBuffer b = pool.acquire(100);
        a.release();
        b.release();
        // Last in, first out: a steady load keeps reusing the same few buffers; the rest never becomes resident.
        assertSame(b, pool.acquire(100));
        assertSame(a, pool.acquire(100));
    }

    @Test
    void buffersAreDistinctWritableMemoryAndFreeingWaitsForDeregistration() {
        List<PooledBuffer> all = new ArrayList<>();
        for (PooledBuffer b; (b = pool.acquire(100)) != null; ) {
            all.add(b);
        }
        for (int i = 0; i < all.size(); i++) {
            ByteBuffer buffer = all.get(i).buffer();
            for (int at = 0; at < buffer.capacity(); at += 8) {
                buffer.putLong(at, i * 1_000_003L + at);
            }
        }
        for (int i = 0; i < all.size(); i++) { // no two buffers overlap
            ByteBuffer buffer = all.get(i).buffer();
            for (int at = 0; at < buffer.capacity(); at += 8) {
                assertEquals(i * 1_000_003L + at, buffer.getLong(at));
            }
        }
        all.forEach(PooledBuffer::release);
        pool.free(); // never registered
        pool.free(); // once only
    }

    @Test
    void largeRequestsNeverTakeSmallBuffersAndOversizedOnesGetNothing() {
        assertEquals(16384, pool.acquire(5000).capacity());
        assertNull(pool.acquire(16385));
        assertEquals(3, pool.freeSmall());
    }

    @Test
    void acquireLargeIsAllOrNothing() {
        PooledBuffer one = pool.acquire(10_000);
        assertNull(pool.acquireLarge(2));
        assertEquals(1, pool.freeLarge(), "a refused multi-acquire gives back what it took");
        one.release();
        List<PooledBuffer> two = pool.acquireLarge(2);
        assertEquals(2, two.size());
        assertNull(pool.acquireLarge(3));
    }

    @Test
    void releaseIsIdempotentAndBuffersDoNotOverlap() {
        PooledBuffer a = pool.acquire(1);
        a.release();
        a.release();
        assertEquals(3, pool.freeSmall());
        assertEquals(0, pool.inUse());
        PooledBuffer b = pool.acquire(1);
        PooledBuffer c = pool.acquire(1);
        b.buffer().put(0, (byte) 1);
        c.buffer().put(0, (byte) 2);
        assertEquals(1, b.buffer().get(0));
        assertEquals(4096, b.buffer().remaining());
        assertTrue(b.buffer().isDirect());
    }

    @Test
    void addressesNeedARegistration() {
        assertFalse(pool.isRegistered());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> pool.acquire(1).address());
        assertTrue(e.getMessage().contains("not registered"));
    }

    @Test
    void settingsAreValidatedAndBoundTheTotal() {
        assertThrows(IllegalArgumentException.class, () -> new RegisteredBufferPool.Settings(1000, 1, 4096, 1));
        assertThrows(IllegalArgumentException.class, () -> new RegisteredBufferPool.Settings(8192, 1, 4096, 1));
        assertThrows(IllegalArgumentException.class, () -> new RegisteredBufferPool.Settings(4096, 1, 4096, 0));
        RegisteredBufferPool.Settings s = RegisteredBufferPool.Settings.ofTotal(64L << 20);
        assertTrue(s.totalBytes() <= 64L << 20);
        assertEquals(32, s.largeBuffers());
        assertEquals(512, s.smallBuffers());
    }

    @Test
    void manyThreadsNeverHoldMoreThanThePoolOrTheSameBufferTwice() throws Exception {
        Set<PooledBuffer> held = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
        ExecutorService threads = Executors.newFixedThreadPool(4);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            done.add(threads.submit(() -> {
                for (int i = 0; i < 50_000; i++) {
                    PooledBuffer b = pool.acquire(i % 2 == 0 ? 10 : 10_000);
                    if (b != null) {
                        if (!held.add(b)) {
                            throw new AssertionError("buffer handed out twice");
                        }
                        if (pool.inUse() > 5) {
                            throw new AssertionError("more buffers in use than exist");
                        }
                        held.remove(b);
                        b.release();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        threads.shutdown();
        assertEquals(0, pool.inUse());
        assertEquals(3, pool.freeSmall());
        assertEquals(2, pool.freeLarge());
    }
}
