package org.seaweedfs.rdma.http;

import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.seaweedfs.rdma.metrics.BatchCounts;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.ByteChunks;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.batch.OrderedReads;
import org.seaweedfs.rdma.sidecar.manifest.ChunkedFile;

/**
 * One {@code POST /batch} answer: a tar stream with a member per line, in request order. A member holds the bytes a
 * GET of its fid without {@code Accept-Encoding} answers: gzip-stored needles decompressed (to at most
 * {@code sidecar.maxNeedleBytes}), a chunk manifest expanded into the file its chunks make (a manifest that cannot be
 * parsed: its own bytes, as a GET). Its mtime is the needle's last-modified. A fid that cannot be served is a member
 * {@code <fid>.error} holding {@code {"status":…,"error":"…"}} and the stream goes on.
 *
 * <p>Members are written without copying their bytes ({@link TarWrite}), several to a write. Memory is bounded by
 * the window: at most that many reads are started and not yet written to the client (a member's bytes are released
 * once the socket took them), plus one chunked file being expanded. A full write queue stops the taking of results
 * until it drains, so a client that stops reading soon stops the reads too; a closed connection cancels the rest.
 */
final class BatchStream {

    private static final String TAR = "application/x-tar";
    /**
     * A write is sent once it holds this many bytes or half the window's members (the other half is read
     * meanwhile: the window refills by halves), else by a task queued behind the completions that arrive together
     * (the read path delivers a poll's completions one after the other, each handing on the members it lets in):
     * one write for many small needles, not one each.
     */
    private static final int WRITE_BYTES = 128 * 1024;

    private final Vertx vertx;
    private final BatchReads reads;
    private final HttpServerResponse response;
    private final List<BatchRequest.Line> lines;
    private final OrderedReads ordered;
    private final int writeMembers;
    private final long startNanos = System.nanoTime();
    private final byte[] header = new byte[TarMember.BLOCK];
    private final ReadMeters meters;
    /** The members ended so far, recorded once when the stream ends or stops. */
    private final BatchCounts counts = new BatchCounts();
    private boolean recorded;
    private int taken;
    /** The members and bytes not written yet (null: none). */
    private TarWrite pending;
    private boolean closed;
    private boolean ending;
    /** A chunked file is being read: the members after it wait. */
    private boolean expanding;
    private boolean flushQueued;
    private Context context;

    BatchStream(Vertx vertx, HttpApiContext api, JwtReadAuth auth, int window, HttpServerRequest request,
                BatchRequest batch) {
        this.vertx = vertx;
        this.reads = new BatchReads(api, auth, JwtReadAuth.token(request));
        this.response = request.response();
        this.lines = batch.lines();
        this.meters = api.meters();
        this.ordered = new OrderedReads(lines.size(), window, reads.range(lines));
        this.writeMembers = Math.max(1, window / 2);
    }

    void start() {
        context = vertx.getOrCreateContext();
        response.setStatusCode(200).setChunked(true).putHeader("Content-Type", TAR);
        response.closeHandler(v -> stop());
        response.exceptionHandler(e -> stop());
        ordered.onReady(v -> pump());
        ordered.start();
        pump();
    }

    /** Reads started and not yet flushed to the client (tests: never above the window). */
    int held() {
        return ordered.held();
    }

    private void pump() {
        if (closed || ending || expanding) {
            return;
        }
        while (!response.closed() && !response.writeQueueFull() && ordered.ready()) {
            member(lines.get(taken++), ordered.take());
            if (expanding || ending) { // a chunked file read at once went on pumping from its completion
                return;
            }
        }
        if (closed || response.closed()) {
            return;
        }
        if (ordered.done()) {
            ending = true;
            TarWrite last = pending();
            pending = null;
            TarMember.appendEnd(last.headers());
            record();
            response.end(last.buffer()).onComplete(written(last));
            return;
        }
        flushLater();
        if (response.writeQueueFull()) {
            response.drainHandler(v -> pump());
        }
    }

    private void member(BatchRequest.Line line, AsyncResult<NeedleContent> result) {
        if (result.failed()) {
            error(line, BatchReads.code(result.cause()), result.cause().getMessage());
            return;
        }
        NeedleContent content = result.result();
        NeedleStat stat = content.stat();
        if (stat.chunkManifest()) {
            expand(line, content);
            return;
        }
        List<Buffer> chunks = content.chunks();
        long size = chunks.size() == 1 ? chunks.get(0).length() : ByteChunks.of(chunks).length();
        TarWrite out = pending();
        TarMember.appendHeader(out.headers(), header, line.text(), size, stat.lastModified());
        out.add(content);
        TarMember.appendPadding(out.headers(), size);
        counts.served(stat.source(), size);
        flushWhenFull(out);
    }

    /** A chunk manifest: the file its chunks make, written once read; the members after it wait until then. */
    private void expand(BatchRequest.Line line, NeedleContent content) {
        expanding = true;
        long mtime = content.stat().lastModified();
        ChunkedFile.serve(vertx, reads.source(), content, reads.maxNeedleBytes()).onComplete(ar -> {
            expanding = false;
            if (closed) {
                ordered.finished();
                return;
            }
            if (ar.failed()) {
                error(line, BatchReads.code(ar.cause()), ar.cause().getMessage());
            } else {
                ByteChunks bytes = ar.result().bytes(); // on the heap: written as they are, nothing to release
                long size = bytes.length();
                TarMember.appendHeader(pending().headers(), header, line.text(), size, mtime);
                flush();
                bytes.chunks().forEach(response::write);
                TarMember.appendPadding(pending().headers(), size);
                counts.served(ar.result().source(), size);
                ordered.finished();
            }
            pump();
        });
    }

    private void error(BatchRequest.Line line, int status, String message) {
        counts.read("none", ReadMeters.resultOf(status));
        Buffer json = new JsonObject().put("status", status).put("error", String.valueOf(message)).toBuffer();
        Buffer out = pending().headers();
        TarMember.appendHeader(out, header, line.text() + ".error", json.length(), System.currentTimeMillis() / 1000);
        out.appendBuffer(json);
        TarMember.appendPadding(out, json.length());
        ordered.finished();
        flushWhenFull(pending);
    }

    /** Records the batch and its members that ended (once: the end handed over, or the connection gone). */
    private void record() {
        if (!recorded) {
            recorded = true;
            meters.recordBatch(ReadMeters.HTTP, counts, System.nanoTime() - startNanos);
        }
    }

    private TarWrite pending() {
        if (pending == null) {
            pending = new TarWrite(Math.min(WRITE_BYTES, 2 * TarMember.BLOCK * (writeMembers + 1)));
        }
        return pending;
    }

    /** Releases {@code write}'s members once the socket took it (or the connection is gone), ending their reads. */
    private Handler<AsyncResult<Void>> written(TarWrite write) {
        return ar -> {
            for (int i = write.release(); i > 0; i--) {
                ordered.finished();
            }
        };
    }

    /** Writes the members waiting once the completions queued now were handed on. */
    private void flushLater() {
        if (pending != null && !flushQueued) {
            flushQueued = true;
            context.runOnContext(v -> {
                flushQueued = false;
                if (!closed && !ending) {
                    flush();
                }
            });
        }
    }

    /** Sends {@code out} once it holds {@link #WRITE_BYTES} or half the window's members. */
    private void flushWhenFull(TarWrite out) {
        if (out.members() >= writeMembers || out.length() >= WRITE_BYTES) {
            flush();
        }
    }

    private void flush() {
        if (pending != null && pending.length() > 0) {
            TarWrite write = pending;
            pending = null;
            response.write(write.buffer()).onComplete(written(write));
        }
    }

    /**
     * The connection closed or failed: nothing more is written, the reads not yet handed on and the members not yet
     * written are released.
     */
    private void stop() {
        if (!closed) {
            closed = true;
            ordered.cancel();
            record();
            if (pending != null) {
                written(pending).handle(null);
                pending = null;
            }
        }
    }
}
