package org.seaweedfs.rdma.http;

import io.vertx.core.http.HttpServerResponse;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.ReadFailure;

/**
 * One needle read of the HTTP face, from its request to its answer: both needle entries (GET of a needle URL and
 * {@code /read}) end through it, once ({@link #sent} or {@link #failed}; later calls do nothing), recording the
 * read's latency, result and bytes. Admission is the read path's ({@code AdmittedSource}): a read it refused ends
 * here as "rejected".
 */
final class ReadScope {

    private final ReadMeters meters;
    private final long startNanos = System.nanoTime();
    private boolean finished;

    ReadScope(ReadMeters meters) {
        this.meters = meters;
    }

    /** Finishes a read whose answer was sent: "ok" with its body bytes, or "aborted" when the client went first. */
    void sent(String source, boolean ok, long bytesServed) {
        finish(source, ok ? "ok" : "aborted", ok ? bytesServed : 0);
    }

    /** Finishes a conditional read answered 304. */
    void notModified(String source) {
        finish(source, "not_modified", 0);
    }

    /**
     * Finishes a read that failed and answers it: the failure's code and message as JSON (with Retry-After when it
     * gives one, and the needle's size in Content-Range for a 416), or, where the volume server answers a needle
     * URL so, an empty 404.
     */
    void failed(HttpServerResponse response, Throwable cause, boolean emptyNotFound) {
        int code = ReadFailure.codeOf(cause);
        boolean refused = cause instanceof ReadFailure rf && rf.overload();
        finish("none", refused ? "rejected" : ReadMeters.resultOf(code), 0);
        if (code == 404 && emptyNotFound) {
            if (!response.headWritten()) {
                response.setStatusCode(404).end();
            }
            return;
        }
        if (code == 416 && cause instanceof ReadFailure rf && rf.needleSize() >= 0 && !response.headWritten()) {
            response.putHeader("Content-Range", "bytes */" + rf.needleSize());
        }
        HttpErrors.sendFailure(response, cause);
    }

    private void finish(String source, String result, long bytesServed) {
        if (finished) {
            return;
        }
        finished = true;
        meters.recordRead(source, result, System.nanoTime() - startNanos);
        if (bytesServed > 0) {
            meters.recordBytesServed(source, bytesServed);
        }
    }
}
