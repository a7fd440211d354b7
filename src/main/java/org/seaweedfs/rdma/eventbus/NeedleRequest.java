package org.seaweedfs.rdma.eventbus;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import org.seaweedfs.rdma.client.NeedleWire;
import org.seaweedfs.rdma.volume.FileId;

/**
 * An event-bus request {@code {"fid": "...", "offset": n?, "length": n?, "raw": bool?}}.
 *
 * @param length bytes wanted, -1 for the rest
 */
record NeedleRequest(FileId fid, long offset, long length, boolean raw) {

    /** Accepts a JsonObject, or its text as a String or Buffer; the exception (IllegalArgumentException or a
     * BAD_REQUEST NeedleException) says what is wrong. */
    static NeedleRequest parse(Object body) {
        JsonObject json = jsonBody(body);
        if (json == null) {
            throw new IllegalArgumentException("request must be a JSON object like {\"fid\":\"3,01637037d6\"}");
        }
        FileId parsed = NeedleWire.fileId(json.getValue("fid"));
        Object raw = json.getValue("raw", false);
        if (!(raw instanceof Boolean r)) {
            throw new IllegalArgumentException("raw: must be true or false");
        }
        return new NeedleRequest(parsed, number(json, "offset", 0), number(json, "length", -1), r);
    }

    /** A request body as a JsonObject: given as one, or as its text in a String or Buffer; null when it is not. */
    static JsonObject jsonBody(Object body) {
        try {
            return body instanceof JsonObject j ? j
                    : body instanceof String s ? new JsonObject(s)
                    : body instanceof Buffer b ? new JsonObject(b)
                    : null;
        } catch (DecodeException e) {
            return null;
        }
    }

    private static long number(JsonObject json, String name, long absent) {
        Object v = json.getValue(name);
        if (v == null) {
            return absent;
        }
        long value;
        if (v instanceof Integer i) {
            value = i;
        } else if (v instanceof Long l) {
            value = l;
        } else {
            throw new IllegalArgumentException(name + ": must be a non-negative integer, got " + v);
        }
        return NeedleWire.atLeast(name, value, 0);
    }
}
