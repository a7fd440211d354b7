package org.seaweedfs.rdma.sidecar.connection;

import static org.junit.jupiter.api.Assertions.*;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.protocol.VolumeInfo;

class VolumeIndexTest {

    private static RemoteVolume volume(long id) {
        return new RemoteVolume(new VolumeInfo(id, "", 3, 1L, 0, 0, List.of()), List.of(), List.of(),
                new VolumeLocations(id, 1L, null, null), "agent");
    }

    @Test
    void findsEveryVolumeItWasBuiltFromAndNothingElse() {
        Map<Long, RemoteVolume> volumes = new HashMap<>();
        Random random = new Random(7);
        for (long id = 0; id < 300; id++) { // consecutive ids, as SeaweedFS assigns them
            volumes.put(id, volume(id));
        }
        for (int i = 0; i < 300; i++) { // and scattered ones up to the uint32 range
            long id = random.nextLong(1L << 32);
            volumes.put(id, volume(id));
        }
        VolumeIndex index = new VolumeIndex(volumes);
        volumes.forEach((id, v) -> assertSame(v, index.get(id), "volume " + id));
        for (int i = 0; i < 10_000; i++) {
            long id = random.nextLong(1L << 33);
            assertEquals(volumes.get(id), index.get(id));
        }
        assertNull(index.get(-1));
    }

    @Test
    void emptyAndSingleVolumeTables() {
        assertNull(VolumeIndex.EMPTY.get(0));
        assertNull(VolumeIndex.EMPTY.get(42));
        RemoteVolume only = volume(42);
        VolumeIndex one = new VolumeIndex(Map.of(42L, only));
        assertSame(only, one.get(42));
        assertNull(one.get(0));
        assertNull(one.get(43));
    }
}
