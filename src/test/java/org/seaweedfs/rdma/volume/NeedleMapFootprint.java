package org.seaweedfs.rdma.volume;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * Measures the heap a {@link NeedleMap} takes per live entry. Run by hand (not a unit test):
 * <pre>
 *   mvn -q -B -o test-compile
 *   java -Xmx4g -cp target/classes:target/test-classes org.seaweedfs.rdma.volume.NeedleMapFootprint 10000000
 * </pre>
 * Keys are sequential, as SeaweedFS assigns them; the map grows from its default size, as when an index is
 * replayed. Heap is measured after repeated GCs before and after.
 */
public final class NeedleMapFootprint {

    public static void main(String[] args) {
        int entries = args.length > 0 ? Integer.parseInt(args[0]) : 10_000_000;
        long before = usedHeapAfterGc();
        NeedleMap map = new NeedleMap();
        for (int i = 0; i < entries; i++) {
            map.put(i + 1L, 8L * (i + 1), 1000 + (i & 0xFFFF));
        }
        long after = usedHeapAfterGc();
        double perEntry = (after - before) / (double) map.size();
        System.out.printf("entries=%d capacity=%d load=%.3f heap=%d bytes per-entry=%.1f bytes%n",
                map.size(), map.capacity(), map.size() / (double) map.capacity(), after - before, perEntry);
        if (map.sizeOf(entries) < 0) {
            throw new AssertionError("map lost an entry"); // also keeps the map reachable until measured
        }
    }

    private static long usedHeapAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 4; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
