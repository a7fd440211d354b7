package org.seaweedfs.rdma.sidecar.memory;

import io.vertx.core.Future;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.seaweedfs.rdma.ucx.UcxMemoryRegion;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;

/**
 * Direct memory for UCX gets, registered once: a few large slabs cut into fixed buffers of two size classes
 * (small for typical needles, large for big ones and for chunks of very big ones). The total is fixed at
 * construction, so pooled memory is bounded; acquiring never blocks and returns null when the class is used up.
 *
 * <p>Thread-safe. Acquire and release allocate nothing (bounded stacks of prebuilt buffers, most recently released
 * first, so only the buffers a load needs ever become resident).
 */
public final class RegisteredBufferPool {

    /** The largest slab one direct ByteBuffer holds here; bigger classes use several slabs. */
    private static final long MAX_SLAB_BYTES = 1L << 30;

    /**
     * @param smallBufferBytes size of a small buffer (e.g. 64 KiB)
     * @param smallBuffers     how many small buffers
     * @param largeBufferBytes size of a large buffer (e.g. 1 MiB); also the chunk size of very large needles
     * @param largeBuffers     how many large buffers
     */
    public record Settings(int smallBufferBytes, int smallBuffers, int largeBufferBytes, int largeBuffers) {
        public Settings {
            require(smallBufferBytes >= 4096 && smallBufferBytes % 8 == 0,
                    "small buffer size must be a multiple of 8 and at least 4096 bytes, got " + smallBufferBytes);
            require(largeBufferBytes >= smallBufferBytes && largeBufferBytes % 8 == 0 && largeBufferBytes
                    <= MAX_SLAB_BYTES,
                    "large buffer size must be a multiple of 8 from the small size (" + smallBufferBytes + ") to "
                            + MAX_SLAB_BYTES + ", got " + largeBufferBytes);
            require(smallBuffers >= 0 && largeBuffers >= 1 && (long) smallBuffers + largeBuffers <= 1_000_000,
                    "buffer counts must be small >= 0 and large >= 1 (at most a million in all), got "
                            + smallBuffers + " and " + largeBuffers);
        }

        /** 64 KiB and 1 MiB buffers sharing {@code totalBytes} half and half (at least one large buffer). */
        public static Settings ofTotal(long totalBytes) {
            int small = 64 << 10;
            int large = 1 << 20;
            require(totalBytes >= large && totalBytes <= (256L << 30),
                    "pool size must be 1 MiB .. 256 GiB, got " + totalBytes);
            int largeCount = (int) Math.max(1, totalBytes / 2 / large);
            int smallCount = (int) ((totalBytes - (long) largeCount * large) / small);
            return new Settings(small, smallCount, large, largeCount);
        }

        public long totalBytes() {
            return (long) smallBufferBytes * smallBuffers + (long) largeBufferBytes * largeBuffers;
        }

        private static void require(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException("buffer pool: " + message);
            }
        }
    }

    private final Settings settings;
    private final SlabMemory memory;
    private final FreeBuffers small;
    private final FreeBuffers large;
    private final AtomicInteger inUse = new AtomicInteger();
    private final LongAdder exhausted = new LongAdder();
    private volatile long[] slabAddresses;
    private volatile List<UcxMemoryRegion> regions = List.of();
    private volatile UcxWorkerVerticle registeredWith;

    /** Allocates the slabs (not yet registered: see {@link #register}); their memory is resident only once used. */
    public RegisteredBufferPool(Settings settings) {
        this.settings = settings;
        this.small = new FreeBuffers(settings.smallBuffers());
        this.large = new FreeBuffers(settings.largeBuffers());
        List<SlabPlan> plan = new ArrayList<>();
        plan(settings.smallBufferBytes(), settings.smallBuffers(), false, plan);
        plan(settings.largeBufferBytes(), settings.largeBuffers(), true, plan);
        this.memory = SlabMemory.allocate(plan.stream().mapToInt(p -> p.bufferBytes * p.count).toArray(), this);
        for (int index = 0; index < plan.size(); index++) {
            SlabPlan p = plan.get(index);
            ByteBuffer slab = memory.slabs().get(index);
            for (int i = 0; i < p.count; i++) {
                ByteBuffer piece = slab.slice(i * p.bufferBytes, p.bufferBytes);
                (p.large ? large : small).push(new PooledBuffer(this, piece, index, (long) i * p.bufferBytes, p.large));
            }
        }
    }

    /** {@code count} buffers of one size class in slabs of at most {@link #MAX_SLAB_BYTES}. */
    private record SlabPlan(int bufferBytes, int count, boolean large) {
    }

    private static void plan(int bufferBytes, int count, boolean large, List<SlabPlan> into) {
        int perSlab = (int) Math.min(count, MAX_SLAB_BYTES / bufferBytes);
        for (int left = count; left > 0; left -= perSlab) {
            into.add(new SlabPlan(bufferBytes, Math.min(perSlab, left), large));
        }
    }

    /**
     * Frees the slabs' memory, once nothing can write or read it any more: after {@link #deregister} and after the
     * worker whose gets wrote into it stopped. Without this, the memory goes when the pool is garbage collected.
     */
    public void free() {
        if (isRegistered()) {
            throw new IllegalStateException("buffer pool is still registered: deregister it first");
        }
        memory.free();
    }

    public Settings settings() {
        return settings;
    }

    /**
     * Registers every slab with the worker whose channels will get into them. Completes on the caller's context.
     */
    public Future<Void> register(UcxWorkerVerticle ucx) {
        if (registeredWith != null) {
            return Future.failedFuture(new IllegalStateException("buffer pool is already registered"));
        }
        registeredWith = ucx;
        List<Future<UcxMemoryRegion>> registrations = new ArrayList<>();
        for (ByteBuffer slab : memory.slabs()) {
            registrations.add(ucx.register(slab.duplicate().clear()));
        }
        return Future.all(registrations).map(all -> {
            List<UcxMemoryRegion> done = all.list();
            long[] addresses = new long[done.size()];
            for (int i = 0; i < addresses.length; i++) {
                addresses[i] = done.get(i).address();
            }
            regions = List.copyOf(done);
            slabAddresses = addresses;
            return (Void) null;
        });
    }

    /** Releases the registrations (no get may be in flight). */
    public Future<Void> deregister() {
        UcxWorkerVerticle ucx = registeredWith;
        List<UcxMemoryRegion> registered = regions;
        regions = List.of();
        slabAddresses = null;
        registeredWith = null;
        if (ucx == null || registered.isEmpty()) {
            return Future.succeededFuture();
        }
        List<Future<Void>> all = new ArrayList<>();
        registered.forEach(region -> all.add(ucx.deregister(region)));
        return Future.all(all).mapEmpty();
    }

    public boolean isRegistered() {
        return slabAddresses != null;
    }

    /**
     * A buffer of at least {@code bytes}: small when it fits, else large (a small request also takes a large
     * buffer when the small ones are used up). Null when none is free or {@code bytes} exceeds the large size.
     */
    public PooledBuffer acquire(long bytes) {
        PooledBuffer buffer = null;
        if (bytes <= settings.smallBufferBytes()) {
            buffer = small.pop();
        }
        if (buffer == null && bytes <= settings.largeBufferBytes()) {
            buffer = large.pop();
        }
        if (buffer == null) {
            exhausted.increment();
            return null;
        }
        taken(buffer);
        return buffer;
    }

    /** {@code count} large buffers, all or none (null when fewer are free). */
    public List<PooledBuffer> acquireLarge(int count) {
        if (count > settings.largeBuffers()) {
            exhausted.increment();
            return null;
        }
        List<PooledBuffer> got = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            PooledBuffer buffer = large.pop();
            if (buffer == null) {
                got.forEach(large::push);
                exhausted.increment();
                return null;
            }
            got.add(buffer);
        }
        got.forEach(this::taken);
        return got;
    }

    private void taken(PooledBuffer buffer) {
        if (!buffer.take()) {
            throw new IllegalStateException("pooled buffer handed out twice");
        }
        inUse.incrementAndGet();
    }

    void giveBack(PooledBuffer buffer) {
        inUse.decrementAndGet();
        (buffer.isLarge() ? large : small).push(buffer);
    }

    long slabAddress(int slab) {
        long[] addresses = slabAddresses;
        if (addresses == null) {
            throw new IllegalStateException("buffer pool is not registered with a UCX worker");
        }
        return addresses[slab];
    }

    public int largeBufferBytes() {
        return settings.largeBufferBytes();
    }

    /** Buffers handed out and not yet released. */
    public int inUse() {
        return inUse.get();
    }

    public int freeSmall() {
        return small.size();
    }

    public int freeLarge() {
        return large.size();
    }

    /** Times an acquire found nothing free. */
    public long exhausted() {
        return exhausted.sum();
    }

    public long totalBytes() {
        return settings.totalBytes();
    }
}
