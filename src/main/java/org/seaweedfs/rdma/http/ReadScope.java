package org.seaweedfs.rdma.http;

import io.vertx.core.http.HttpServerResponse;
import org.seaweedfs.rdma.metrics.ReadMeters;

/**
 * One admitted needle read: holds its admission slot until {@link #finish} (called once, whatever
 * the outcome; later calls do nothing) and then records its latency, result and bytes.
 */
final class ReadScope {

    private final Admission admission;
    private final ReadMeters meters;
    private final long startNanos = System.nanoTime();
    private boolean finished;

    private ReadScope(Admission admission, ReadMeters meters) {
        this.admission = admission;
        this.meters = meters;
    }

    /** An admitted scope, or null after answering 503 with Retry-After. */
    static ReadScope admit(HttpApiContext api, HttpServerResponse response) {
        if (!api.admission().tryAcquire()) {
            api.meters().recordRead("none", "rejected", 0);
            response.putHeader("Retry-After", "1");
            HttpErrors.send(response, 503, "too many reads in flight (sidecar.maxInFlightReads="
                    + api.admission().limit() + ")");
            return null;
        }
        return new ReadScope(api.admission(), api.meters());
    }

    /** Finishes a read whose answer was sent: "ok" with its body bytes, or "aborted" when the client went first. */
    void sent(String source, boolean ok, long bytesServed) {
        finish(source, ok ? "ok" : "aborted", ok ? bytesServed : 0);
    }

    void finish(String source, String result, long bytesServed) {
        if (finished) {
            return;
        }
        finished = true;
        admission.release();
        meters.recordRead(source, result, System.nanoTime() - startNanos);
        if (bytesServed > 0) {
            meters.recordBytesServed(source, bytesServed);
        }
    }
}
