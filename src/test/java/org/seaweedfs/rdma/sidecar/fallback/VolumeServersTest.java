package org.seaweedfs.rdma.sidecar.fallback;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The master's /dir/lookup answer as SeaweedFS gives it for an EC volume: shard holders, once per shard. */
class VolumeServersTest {

    @Test
    void ecShardHoldersListedOncePerShardAreKeptOnceInTheMastersOrder() {
        JsonObject body = new JsonObject("""
                {"volumeOrFileId":"7","locations":[
                  {"url":"10.0.0.2:8080","publicUrl":"a:8080","dataCenter":"dc1"},
                  {"url":"10.0.0.2:8080","publicUrl":"a:8080","dataCenter":"dc1"},
                  {"url":"10.0.0.3:8080","publicUrl":"b:8080","dataCenter":"dc1"},
                  {"url":"10.0.0.2:8080","publicUrl":"a:8080","dataCenter":"dc1"}]}""");
        VolumeServers locations = VolumeServers.parse(7, body);
        assertEquals(List.of("10.0.0.2:8080", "10.0.0.3:8080"),
                locations.locations().stream().map(VolumeLocation::url).toList());
    }
}
