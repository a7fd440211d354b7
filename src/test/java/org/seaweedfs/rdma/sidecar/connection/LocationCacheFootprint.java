package org.seaweedfs.rdma.sidecar.connection;

import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.lang.management.ManagementFactory;
import org.seaweedfs.rdma.sidecar.locations.LocationCache;
import org.seaweedfs.rdma.sidecar.locations.NeedleLocation;

/**
 * Measures the heap one {@link LocationCache} entry takes (key, value, Caffeine's node, hash-table slot and
 * frequency sketch), to check {@link LocationCache#ENTRY_BYTES}. Run by hand (not a unit test):
 * <pre>
 *   mvn -q -B -o test-compile
 *   java -Xmx2g -cp target/classes:target/test-classes:$(cat target/classpath.txt) \
 *       org.seaweedfs.rdma.sidecar.connection.LocationCacheFootprint 1000000
 * </pre>
 * The cache is filled to its budget (entries x ENTRY_BYTES), so the sketch and table are at their full size.
 */
public final class LocationCacheFootprint {

    public static void main(String[] args) {
        int entries = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        long before = usedHeapAfterGc();
        LocationCache cache =
                new LocationCache((long) entries * LocationCache.ENTRY_BYTES, new CompositeMeterRegistry());
        VolumeLocations volume = new VolumeLocations(1, 1, cache, null);
        for (int i = 0; i < entries; i++) {
            cache.put(volume, i + 1L, new NeedleLocation(8L * (i + 1), 1000 + (i & 0xFFFF)));
        }
        cache.cleanUp();
        long after = usedHeapAfterGc();
        System.out.printf("entries=%d heap=%d bytes per-entry=%.1f bytes (ENTRY_BYTES=%d)%n",
                cache.size(), after - before, (after - before) / (double) cache.size(), LocationCache.ENTRY_BYTES);
        if (cache.find(volume, 1) == null && cache.size() == entries) {
            System.out.println("(first entry evicted)"); // keeps the cache reachable until measured
        }
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 4; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
