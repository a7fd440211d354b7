package org.seaweedfs.rdma.http;

import io.vertx.core.Future;
import java.util.List;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.batch.OrderedReads;
import org.seaweedfs.rdma.sidecar.batch.PlainRange;

/**
 * The reads of one {@code POST /batch}: each line's token checked as a GET's would be (the line's, else the
 * request's), then the needle's plain bytes read. Without a read key no token is looked at and the read starts at
 * once, with no future in between.
 */
final class BatchReads {

    private final HttpApiContext api;
    private final JwtReadAuth auth;
    private final String requestToken;

    BatchReads(HttpApiContext api, JwtReadAuth auth, String requestToken) {
        this.api = api;
        this.auth = auth;
        this.requestToken = requestToken;
    }

    /** The reads of a range of lines: together (one batch of the read path) when no token is to be checked. */
    OrderedReads.Range range(List<BatchRequest.Line> lines) {
        if (!auth.required()) {
            return PlainRange.of(api.source(), api.maxNeedleBytes(), i -> lines.get(i).fid());
        }
        return OrderedReads.oneByOne(i -> read(lines.get(i)));
    }

    private Future<NeedleContent> read(BatchRequest.Line line) {
        if (!auth.required()) {
            return plain(line);
        }
        String token = line.token() != null ? line.token() : requestToken;
        return auth.check(token, line.fid())
                .recover(e -> Future.failedFuture(new Unauthorized(e.getMessage())))
                .compose(v -> plain(line));
    }

    NeedleSource source() {
        return api.source();
    }

    long maxNeedleBytes() {
        return api.maxNeedleBytes();
    }

    private Future<NeedleContent> plain(BatchRequest.Line line) {
        return api.source().readSlice(line.fid(), null, 0, -1, api.maxNeedleBytes());
    }

    /** The status a failed read answers: 401 for a token that does not allow its fid, as a GET. */
    static int code(Throwable cause) {
        return cause instanceof Unauthorized ? 401 : ReadFailure.codeOf(cause);
    }

    /** A line whose token does not allow its fid. */
    private static final class Unauthorized extends RuntimeException {
        Unauthorized(String message) {
            super(message, null, false, false);
        }
    }
}
