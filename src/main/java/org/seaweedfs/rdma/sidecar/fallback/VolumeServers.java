package org.seaweedfs.rdma.sidecar.fallback;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/** The volume servers holding one volume, in the master's order (the order replicas are tried in). */
public record VolumeServers(long volumeId, List<VolumeLocation> locations) {

    public VolumeServers {
        locations = List.copyOf(locations);
    }

    /**
     * Parses the master's {@code /dir/lookup} answer:
     * {@code {"volumeOrRootId":"3","locations":[{"url":"host:port","publicUrl":"host:port"}]}}. For an
     * erasure-coded volume the master lists the servers holding its shards, a server once per shard it holds:
     * each server is kept once, at its first place (they all serve EC reads over HTTP).
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static VolumeServers parse(long volumeId, JsonObject body) {
        if (body == null) {
            throw new IllegalArgumentException("lookup answer is not a JSON object");
        }
        Object error = body.getValue("error");
        if (error != null && !String.valueOf(error).isEmpty()) {
            throw new IllegalArgumentException("master: " + error);
        }
        Object raw = body.getValue("locations");
        if (!(raw instanceof JsonArray array)) {
            throw new IllegalArgumentException("lookup answer has no 'locations' array");
        }
        List<VolumeLocation> out = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            if (!(array.getValue(i) instanceof JsonObject loc) || !(loc.getValue("url") instanceof String url)) {
                throw new IllegalArgumentException("locations[" + i + "] has no 'url' string");
            }
            Object pub = loc.getValue("publicUrl");
            if (out.stream().anyMatch(l -> l.url().equals(url))) {
                continue; // an EC volume's holders come once per shard they hold
            }
            try {
                out.add(new VolumeLocation(url, pub instanceof String p ? p : null));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("locations[" + i + "]: " + e.getMessage());
            }
        }
        return new VolumeServers(volumeId, out);
    }
}
