package org.seaweedfs.rdma.sidecar.connection;

import static org.junit.jupiter.api.Assertions.*;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.sidecar.locations.LocationCache;
import org.seaweedfs.rdma.sidecar.locations.NeedleLocation;

/** The cache's policy: what is read often survives a scan of one-off reads going on beside it. */
class LocationCacheTest {

    private static final int CAPACITY = 2_000;

    private static LocationCache cacheOfCapacity() {
        return new LocationCache((long) CAPACITY * LocationCache.ENTRY_BYTES, new SimpleMeterRegistry());
    }

    @Test
    void aHotSetReadOftenSurvivesAScanOfOneOffEntries() {
        LocationCache cache = cacheOfCapacity();
        VolumeLocations volume = new VolumeLocations(1, 1, cache, null);
        int hot = CAPACITY / 4;
        for (long key = 0; key < hot; key++) {
            cache.put(volume, key, new NeedleLocation(key * 8, 100));
        }
        for (int round = 0; round < 20; round++) {
            for (long key = 0; key < hot; key++) {
                assertEquals(new NeedleLocation(key * 8, 100), volume.find(key));
            }
        }
        long next = 0;
        for (long key = 1_000_000; key < 1_000_000 + 10L * CAPACITY; key++) { // a scan: each read once, then cached
            assertNull(volume.find(key));
            cache.put(volume, key, new NeedleLocation(key * 8, 100));
            for (int i = 0; i < 2; i++) { // while the hot set is still read
                long hotKey = next++ % hot;
                assertEquals(new NeedleLocation(hotKey * 8, 100), volume.find(hotKey));
            }
        }
        int survivors = 0;
        for (long key = 0; key < hot; key++) {
            NeedleLocation found = volume.find(key);
            if (found != null) {
                assertEquals(new NeedleLocation(key * 8, 100), found, "never a wrong location");
                survivors++;
            }
        }
        assertTrue(survivors >= hot * 9 / 10, survivors + " of " + hot + " hot entries survived the scan");
        assertTrue(cache.size() <= CAPACITY + CAPACITY / 10, "bounded: " + cache.size());
    }

    @Test
    void aLocationFoundWithoutTheAgentIsCachedFromItsSecondOffer() {
        LocationCache cache = new LocationCache(1 << 20, new SimpleMeterRegistry());
        VolumeLocations volume = new VolumeLocations(7, 3, cache, null);
        VolumeLocations otherEpoch = new VolumeLocations(7, 4, cache, null);
        assertFalse(cache.admit(volume, 42, 4096, 10));
        assertNull(volume.find(42));
        assertFalse(cache.admit(otherEpoch, 42, 4096, 10), "another epoch's needle is another needle");
        assertTrue(cache.admit(volume, 42, 4096, 10));
        assertEquals(new NeedleLocation(4096, 10), volume.find(42));
        assertNull(otherEpoch.find(42));
        assertEquals(1, cache.size());
    }

    @Test
    void oneOffOffersNeitherFillTheCacheNorEvictTheHotSet() {
        LocationCache cache = cacheOfCapacity();
        VolumeLocations volume = new VolumeLocations(1, 1, cache, null);
        int hot = CAPACITY / 4;
        for (long key = 0; key < hot; key++) {
            cache.admit(volume, key, key * 8, 100); // noted (or, colliding with marks, cached at once)
            assertTrue(cache.admit(volume, key, key * 8, 100));
        }
        int scan = 10 * CAPACITY;
        int admitted = 0;
        for (long key = 1_000_000; key < 1_000_000 + scan; key++) { // uniform reads: each needle once
            admitted += cache.admit(volume, key, key * 8, 100) ? 1 : 0;
            assertEquals(new NeedleLocation(key % hot * 8, 100), volume.find(key % hot));
        }
        cache.cleanUp();
        // Marks collide now and then (about 2 % of one-off offers are admitted): never enough to evict.
        assertTrue(admitted < scan / 20, admitted + " of " + scan + " one-off offers cached");
        assertEquals(hot + admitted, cache.size());
        assertEquals(0, cache.evictions());
    }

    @Test
    void findsWhatWasPutUntilEvicted() {
        LocationCache cache = new LocationCache(1 << 20, new SimpleMeterRegistry());
        VolumeLocations volume = new VolumeLocations(7, 3, cache, null);
        cache.put(volume, 42, new NeedleLocation(4096, 10));
        for (int i = 0; i < 16; i++) {
            assertEquals(new NeedleLocation(4096, 10), volume.find(42));
            assertNull(volume.find(43));
        }
        volume.evict(42);
        assertNull(volume.find(42));
    }

    @Test
    void aLocationPutAgainReplacesTheOneBeforeAndIsCountedOnce() {
        LocationCache cache = new LocationCache(1 << 20, new SimpleMeterRegistry());
        VolumeLocations volume = new VolumeLocations(7, 3, cache, null);
        VolumeLocations otherEpoch = new VolumeLocations(7, 4, cache, null);
        cache.put(volume, 42, new NeedleLocation(4096, 10));
        cache.put(otherEpoch, 42, new NeedleLocation(8192, 20));
        cache.put(volume, 42, new NeedleLocation(65536, 11)); // the hash table keeps the first key object it saw

        assertEquals(new NeedleLocation(65536, 11), volume.find(42));
        assertEquals(new NeedleLocation(8192, 20), otherEpoch.find(42), "another epoch's entry is its own");
        assertEquals(2, cache.size());
        assertEquals(1, volume.cachedEntries());
    }
}
