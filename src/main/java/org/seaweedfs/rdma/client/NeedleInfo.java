package org.seaweedfs.rdma.client;

import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;

/**
 * A needle's metadata ({@link NeedleClient#stat}); its record was read and its checksum verified. The event bus's
 * {@code seaweedfs.needle.stat} reply is {@link #toJson()} of it.
 *
 * @param size         data length in bytes as stored (the compressed length when {@code compressed})
 * @param etag         8 lowercase hex digits of the stored data's CRC-32C
 * @param mime         the stored mime type, "" when none
 * @param contentType  the type the volume server would send; null when neither the mime nor the name says
 * @param lastModified unix seconds, 0 when unset
 * @param pairs        extra HTTP headers stored with the needle
 * @param source       the path that read it: {@code rdma}, {@code read-through} or {@code http}
 */
public record NeedleInfo(String fid, long size, String etag, String name, String mime, String contentType,
                         long lastModified, boolean compressed, boolean chunkManifest, Map<String, String> pairs,
                         String source) {

    public NeedleInfo {
        pairs = pairs == null ? Map.of() : Map.copyOf(pairs);
    }

    public JsonObject toJson() {
        return new JsonObject()
                .put("fid", fid)
                .put("size", size)
                .put("etag", etag)
                .put("name", name)
                .put("mime", mime)
                .put("contentType", contentType)
                .put("lastModified", lastModified)
                .put("compressed", compressed)
                .put("chunkManifest", chunkManifest)
                .put("pairs", new JsonObject(new HashMap<>(pairs)))
                .put("source", source);
    }

    /** The inverse of {@link #toJson()}; a reply missing a required field fails with a clear message. */
    public static NeedleInfo fromJson(JsonObject json) {
        try {
            Map<String, String> pairs = new HashMap<>();
            JsonObject p = json.getJsonObject("pairs", new JsonObject());
            p.forEach(e -> pairs.put(e.getKey(), String.valueOf(e.getValue())));
            return new NeedleInfo(required(json, "fid"), json.getLong("size", -1L), required(json, "etag"),
                    json.getString("name", ""), json.getString("mime", ""), json.getString("contentType"),
                    json.getLong("lastModified", 0L), json.getBoolean("compressed", false),
                    json.getBoolean("chunkManifest", false), pairs, json.getString("source", ""));
        } catch (ClassCastException e) {
            throw new IllegalArgumentException("stat reply has a field of the wrong type: " + json, e);
        }
    }

    private static String required(JsonObject json, String key) {
        String v = json.getString(key);
        if (v == null) {
            throw new IllegalArgumentException("stat reply without " + key + ": " + json);
        }
        return v;
    }
}
