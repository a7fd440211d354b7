package org.seaweedfs.rdma.eventbus;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code seaweedfs.needle.readMany} request {@code {"fids": ["3,01637037d6", ...]}}. Only the list's shape is
 * checked here: a fid that does not parse fails its own entry, not the call.
 */
final class ManyRequest {

    private ManyRequest() {
    }

    /** The fids (a non-string element kept as its text, to fail in its entry); IllegalArgumentException when not. */
    static List<String> parse(Object body, int maxFids) {
        JsonObject json = NeedleRequest.jsonBody(body);
        Object list = json == null ? null : json.getValue("fids");
        if (!(list instanceof JsonArray fids)) {
            throw new IllegalArgumentException("request must be a JSON object like {\"fids\":[\"3,01637037d6\"]}");
        }
        if (fids.size() > maxFids) {
            throw new IllegalArgumentException("too many fids: " + fids.size() + " (sidecar.batch.maxFids "
                    + maxFids + ")");
        }
        List<String> out = new ArrayList<>(fids.size());
        for (Object fid : fids) {
            out.add(fid instanceof String s ? s : String.valueOf(fid));
        }
        return out;
    }
}
