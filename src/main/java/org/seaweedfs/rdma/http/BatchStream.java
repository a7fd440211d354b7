package org.seaweedfs.rdma.http;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.batch.OrderedReads;

/**
 * One {@code POST /batch} answer: a tar stream with a member per line, in request order. A member holds the bytes a
 * GET of its fid without {@code Accept-Encoding} answers (gzip-stored needles decompressed, to at most
 * {@code sidecar.maxNeedleBytes}), its mtime the needle's last-modified; a fid that cannot be served is a member
 * {@code <fid>.error} holding {@code {"status":…,"error":"…"}} and the stream goes on. A chunk manifest is such a
 * member too (status 501: a GET expands it into the file its chunks make; a batch serves single needles).
 *
 * <p>Memory is bounded by the window: at most that many reads are started and not yet flushed to the client (a
 * member's bytes are released once the socket took them). A full write queue stops the taking of results until it
 * drains, so a client that stops reading soon stops the reads too; a closed connection cancels the rest.
 */
final class BatchStream {

    private static final String TAR = "application/x-tar";
    /**
     * Members up to this size are copied, with their header and padding, into one buffer shared with the members
     * ready beside them, and written at once when it reaches {@link #COALESCE_BYTES}: one write and one flush for
     * many small needles instead of three each; their read buffers go back at once. Larger ones are written as they
     * are, their buffers kept until the socket took them.
     */
    private static final int SMALL_MEMBER = 16 * 1024;
    private static final int COALESCE_BYTES = 64 * 1024;

    private final HttpApiContext api;
    private final JwtReadAuth auth;
    private final HttpServerResponse response;
    private final List<BatchRequest.Line> lines;
    private final String requestToken;
    private final OrderedReads reads;
    private final long startNanos = System.nanoTime();
    private int taken;
    /** Small members not written yet (null: none). */
    private Buffer coalesced;
    private boolean closed;
    private boolean ending;

    BatchStream(HttpApiContext api, JwtReadAuth auth, int window, HttpServerRequest request, BatchRequest batch) {
        this.api = api;
        this.auth = auth;
        this.response = request.response();
        this.lines = batch.lines();
        this.requestToken = JwtReadAuth.token(request);
        this.reads = new OrderedReads(lines.size(), window, this::read);
    }

    void start() {
        response.setStatusCode(200).setChunked(true).putHeader("Content-Type", TAR);
        response.closeHandler(v -> stop());
        response.exceptionHandler(e -> stop());
        reads.onReady(v -> pump());
        reads.start();
        pump();
    }

    /** Reads started and not yet flushed to the client (tests: never above the window). */
    int held() {
        return reads.held();
    }

    /** The read of line {@code index}: its token checked as a GET's would be (the line's, else the request's). */
    private Future<NeedleContent> read(int index) {
        BatchRequest.Line line = lines.get(index);
        String token = line.token() != null ? line.token() : requestToken;
        return auth.check(token, line.fid())
                .recover(e -> Future.failedFuture(new Unauthorized(e.getMessage())))
                .compose(v -> api.source().readSlice(line.fid(), null, 0, -1, api.maxNeedleBytes()));
    }

    private void pump() {
        if (closed || ending) {
            return;
        }
        while (!response.closed() && !response.writeQueueFull() && reads.ready()) {
            member(lines.get(taken++), reads.take());
        }
        if (closed || response.closed()) {
            return;
        }
        if (reads.done()) {
            ending = true;
            response.end(take(TarMember.end()));
            return;
        }
        flush();
        if (response.writeQueueFull()) {
            response.drainHandler(v -> pump());
        }
    }

    private void member(BatchRequest.Line line, AsyncResult<NeedleContent> result) {
        if (result.failed()) {
            error(line, code(result.cause()), result.cause().getMessage());
            return;
        }
        NeedleContent content = result.result();
        NeedleStat stat = content.stat();
        if (stat.chunkManifest()) {
            content.release();
            error(line, 501, "chunk manifest: a GET of " + line.text() + " serves the file its chunks make;"
                    + " a batch serves single needles");
            return;
        }
        long size = 0;
        for (Buffer chunk : content.chunks()) {
            size += chunk.length();
        }
        Buffer header = TarMember.header(line.text(), size, stat.lastModified());
        if (size <= SMALL_MEMBER) {
            coalesce(header);
            content.chunks().forEach(this::coalesce);
            coalesce(TarMember.padding(size));
            content.release();
            reads.finished();
            api.meters().recordRead(stat.source(), "ok", System.nanoTime() - startNanos);
            api.meters().recordBytesServed(stat.source(), size);
            return;
        }
        flush();
        response.write(header);
        Future<Void> last = null;
        for (Buffer chunk : content.chunks()) {
            last = response.write(chunk);
        }
        response.write(TarMember.padding(size));
        long bytes = size;
        Runnable done = () -> {
            content.release();
            reads.finished();
            api.meters().recordRead(stat.source(), "ok", System.nanoTime() - startNanos);
            api.meters().recordBytesServed(stat.source(), bytes);
        };
        if (last == null) {
            done.run();
        } else {
            // The chunks may be pooled memory: kept until the socket took them (or the connection is gone).
            last.onComplete(ar -> done.run());
        }
    }

    private void error(BatchRequest.Line line, int status, String message) {
        api.meters().recordRead("none", ReadMeters.resultOf(status), System.nanoTime() - startNanos);
        Buffer json = new JsonObject().put("status", status).put("error", String.valueOf(message)).toBuffer();
        coalesce(TarMember.header(line.text() + ".error", json.length(), System.currentTimeMillis() / 1000));
        coalesce(json);
        coalesce(TarMember.padding(json.length()));
        reads.finished();
    }

    /** Appends to the small members waiting; writes them once they reach {@link #COALESCE_BYTES}. */
    private void coalesce(Buffer bytes) {
        if (coalesced == null) {
            coalesced = Buffer.buffer(COALESCE_BYTES + SMALL_MEMBER + 2 * TarMember.BLOCK);
        }
        coalesced.appendBuffer(bytes);
        if (coalesced.length() >= COALESCE_BYTES) {
            flush();
        }
    }

    private void flush() {
        if (coalesced != null) {
            Buffer out = coalesced;
            coalesced = null;
            response.write(out);
        }
    }

    /** {@code last} behind the small members waiting, as one buffer. */
    private Buffer take(Buffer last) {
        if (coalesced == null) {
            return last;
        }
        Buffer out = coalesced.appendBuffer(last);
        coalesced = null;
        return out;
    }

    private static int code(Throwable cause) {
        return cause instanceof Unauthorized ? 401 : ReadFailure.codeOf(cause);
    }

    /** The connection closed or failed: nothing more is written, the reads not yet handed on are released. */
    private void stop() {
        closed = true;
        reads.cancel();
    }

    /** A line whose token does not allow its fid: 401, as a GET would answer. */
    private static final class Unauthorized extends RuntimeException {
        Unauthorized(String message) {
            super(message, null, false, false);
        }
    }
}
