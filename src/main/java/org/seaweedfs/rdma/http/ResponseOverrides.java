package org.seaweedfs.rdma.http;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The S3-style {@code response-*} query parameters the volume server honours on reads
 * ({@code ?response-content-type=...} and so on): each sets its header, replacing what the needle gave.
 * Parameter names match case-insensitively; the first value counts. CR and LF become spaces, as Go writes them.
 */
final class ResponseOverrides {

    private static final Map<String, String> HEADERS = Map.of(
            "response-cache-control", "Cache-Control",
            "response-content-disposition", "Content-Disposition",
            "response-content-encoding", "Content-Encoding",
            "response-content-language", "Content-Language",
            "response-content-type", "Content-Type",
            "response-expires", "Expires");

    private ResponseOverrides() {
    }

    static void apply(HttpServerRequest request, HttpServerResponse response) {
        String query = request.query();
        if (query == null || !query.toLowerCase(Locale.ROOT).contains("response-")) {
            return;
        }
        Set<String> done = new HashSet<>();
        for (Map.Entry<String, String> param : request.params()) {
            String header = HEADERS.get(param.getKey().toLowerCase(Locale.ROOT));
            if (header != null && done.add(header)) {
                response.putHeader(header, param.getValue().replace('\r', ' ').replace('\n', ' '));
            }
        }
    }
}
