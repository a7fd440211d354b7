package org.seaweedfs.rdma.eventbus;

import io.vertx.core.AsyncResult;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import java.util.List;
import java.util.function.Function;
import org.seaweedfs.rdma.config.SidecarConfig;
import org.seaweedfs.rdma.client.NeedleClient;
import org.seaweedfs.rdma.client.NeedleException;
import org.seaweedfs.rdma.client.NeedleFrame;
import org.seaweedfs.rdma.client.NeedleWire;
import org.seaweedfs.rdma.metrics.BatchCounts;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.polling.AwakeLoop;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleSlice;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.batch.ManyReads;
import org.seaweedfs.rdma.sidecar.batch.PlainRange;

/**
 * The event-bus API for Vert.x applications (same JVM or clustered).
 * <ul>
 * <li>{@value #READ_ADDRESS}: request {@code {"fid","offset"?,"length"?,"raw"?}}; reply body a Buffer of the
 * bytes (decompressed unless raw), headers {@code etag}, {@code content-type}, {@code name},
 * {@code last-modified} (unix seconds, 0 when unset), {@code size} (the whole needle's length in the form
 * sent), {@code source} ({@code rdma} | {@code fallback}), and {@code content-encoding: gzip} for raw
 * compressed needles. An offset past the end fails 416; a length past the end is cut short.</li>
 * <li>{@value #STAT_ADDRESS}: the same request; reply a JSON object of the metadata.</li>
 * <li>{@value #READ_MANY_ADDRESS}: request {@code {"fids": ["...", ...]}} (at most {@code sidecar.batch.maxFids});
 * reply one {@link NeedleFrame} with an entry per fid in request order, each the decompressed needle or that fid's
 * failure code and text. The call fails 400 only as a whole (not a list, too many fids).</li>
 * </ul>
 * Failures: {@code message.fail(code, text)} with 400, 404, 416, 502 (corrupt), 503 (no path), 504 (timeout),
 * 500 (anything else). A needle above {@code sidecar.maxNeedleBytes} fails 400 (the contract's closed list of codes
 * has no 413; HTTP answers 413) with a text starting "too large: ", so consumers can tell it from a malformed request.
 * On a bus that is not clustered, replies use {@link LocalBufferCodec}: in-JVM consumers get the buffer without a
 * copy; on a clustered bus they are plain buffers (Vert.x's own codec), readable on every node.
 * The headers, stat JSON and failure texts come from {@link NeedleWire}, which the {@link NeedleClient}s read.
 * Answers leave in batches ({@link ReplyBatch}): one wake-up of a requester's event loop for many replies; after a
 * batch, the event loop keeps polling for the idle-poll time ({@link AwakeLoop}), so a requester sending one request
 * at a time finds it awake.
 *
 * <p>{@link #deploy} deploys one instance consuming every address and further instances, each on an event loop of
 * its own, consuming {@value #READ_MANY_ADDRESS} only: a {@code readMany} call is a batch of reads, and calls in
 * flight at once are then read on several cores, while single reads keep one consumer (spreading them would only
 * add cross-thread wake-ups).
 */
public final class EventBusApiVerticle extends VerticleBase {

    public static final String READ_ADDRESS = "seaweedfs.needle.read";
    public static final String STAT_ADDRESS = "seaweedfs.needle.stat";
    public static final String READ_MANY_ADDRESS = "seaweedfs.needle.readMany";

    private final NeedleSource source;
    private final long maxNeedleBytes;
    private final ReadMeters meters;
    private final int idlePollMicros;
    private final SidecarConfig.Batch batch;
    private final boolean singleReads;
    private MessageConsumer<Object> reads;
    private MessageConsumer<Object> stats;
    private MessageConsumer<Object> readMany;
    private boolean localReplies;
    private ReplyBatch replies;

    /**
     * @param idlePollMicros how long the event loop keeps polling after it answered ({@link AwakeLoop}); 0: none
     * @param singleReads    whether this instance consumes reads and stats too, not only {@value #READ_MANY_ADDRESS}
     */
    public EventBusApiVerticle(NeedleSource source, long maxNeedleBytes, ReadMeters meters, int idlePollMicros,
                               SidecarConfig.Batch batch, boolean singleReads) {
        this.source = source;
        this.maxNeedleBytes = maxNeedleBytes;
        this.meters = meters;
        this.idlePollMicros = idlePollMicros;
        this.batch = batch;
        this.singleReads = singleReads;
    }

    /** Consuming every address. */
    public EventBusApiVerticle(NeedleSource source, long maxNeedleBytes, ReadMeters meters, int idlePollMicros,
                               SidecarConfig.Batch batch) {
        this(source, maxNeedleBytes, meters, idlePollMicros, batch, true);
    }

    /** With the default {@code sidecar.batch.*} bounds. */
    public EventBusApiVerticle(NeedleSource source, long maxNeedleBytes, ReadMeters meters, int idlePollMicros) {
        this(source, maxNeedleBytes, meters, idlePollMicros, SidecarConfig.Batch.DEFAULT);
    }

    @Override
    public Future<?> start() {
        // A clustered bus may deliver a reply to another node, which would not know the local codec: plain buffers.
        localReplies = !vertx.isClustered();
        replies = new ReplyBatch(context, new AwakeLoop(context, idlePollMicros));
        LocalBufferCodec.registerOn(vertx.eventBus());
        readMany = vertx.eventBus().consumer(READ_MANY_ADDRESS, this::readMany);
        if (!singleReads) {
            return readMany.completion();
        }
        reads = vertx.eventBus().consumer(READ_ADDRESS, m -> handle(m, this::read));
        stats = vertx.eventBus().consumer(STAT_ADDRESS, m -> handle(m, this::stat));
        return Future.all(reads.completion(), stats.completion(), readMany.completion());
    }

    @Override
    public Future<?> stop() {
        return singleReads ? Future.all(reads.unregister(), stats.unregister(), readMany.unregister())
                : readMany.unregister();
    }

    /**
     * Deploys the consumers (see the class comment): {@code readManyConsumers} in all, the first consuming every
     * address. Completes with the deployments' ids.
     */
    public static Future<List<String>> deploy(Vertx vertx, int readManyConsumers,
                                              Function<Boolean, EventBusApiVerticle> instance) {
        Future<String> all = vertx.deployVerticle(instance.apply(true));
        return readManyConsumers <= 1 ? all.map(List::of) : all.compose(id -> vertx.deployVerticle(
                () -> instance.apply(false), new DeploymentOptions().setInstances(readManyConsumers - 1))
                .map(only -> List.of(id, only)));
    }

    private interface RequestHandler {
        void handle(Message<Object> message, NeedleRequest request, long startNanos);
    }

    /** Parses the request (400 when malformed) and passes it on with the start time. */
    private void handle(Message<Object> message, RequestHandler handler) {
        long start = System.nanoTime();
        NeedleRequest request;
        try {
            request = NeedleRequest.parse(message.body());
        } catch (IllegalArgumentException | NeedleException e) {
            fail(message, e, start);
            return;
        }
        handler.handle(message, request, start);
    }

    /**
     * Plain bytes are a slice read (the HTTP fallback fetches only the range); raw ones are cut from the stored needle.
     */
    private void read(Message<Object> message, NeedleRequest request, long start) {
        Future<NeedleContent> slice = request.raw()
                ? source.read(request.fid()).compose(whole ->
                        NeedleSlice.ofStored(whole, request.offset(), request.length()))
                : source.readSlice(request.fid(), null, request.offset(), request.length(), maxNeedleBytes);
        slice.onComplete(ar -> {
            if (ar.failed()) {
                fail(message, ar.cause(), start);
            } else {
                reply(message, ar.result(), start);
            }
        });
    }

    /** Releases {@code content} before answering, so a consumer never sees pooled memory in use. */
    private void reply(Message<Object> message, NeedleContent content, long start) {
        NeedleStat stat = content.stat();
        DeliveryOptions options = new DeliveryOptions()
                .addHeader(NeedleWire.ETAG, stat.etag())
                .addHeader(NeedleWire.CONTENT_TYPE, NeedleWire.contentType(stat))
                .addHeader(NeedleWire.NAME, stat.name())
                .addHeader(NeedleWire.LAST_MODIFIED, Long.toString(stat.lastModified()))
                .addHeader(NeedleWire.SIZE, Long.toString(stat.size()))
                .addHeader(NeedleWire.SOURCE, NeedleWire.source(stat));
        if (localReplies) {
            options.setCodecName(LocalBufferCodec.NAME);
        }
        if (stat.compressed()) { // only a raw read keeps the stored form
            options.addHeader("content-encoding", "gzip");
        }
        // The copy lets pooled memory go back now; the consumer owns the reply buffer.
        Buffer body = NeedleWire.takeBody(content);
        replies.add(() -> {
            message.reply(body, options);
            meters.recordRead(stat.source(), "ok", System.nanoTime() - start);
            meters.recordBytesServed(stat.source(), body.length());
        });
    }

    /**
     * One frame ({@link NeedleFrame}) for the whole list, each needle copied into it once as it arrives (its pooled
     * buffer goes back at once); a needle that would take the frame past {@code sidecar.batch.maxReplyBytes} is an
     * entry with status 400 and a text starting "too large: " (as a needle above {@code sidecar.maxNeedleBytes}).
     */
    private void readMany(Message<Object> message) {
        long start = System.nanoTime();
        List<String> fids;
        try {
            fids = ManyRequest.parse(message.body(), batch.maxFids());
        } catch (IllegalArgumentException | NeedleException e) {
            fail(message, e, start);
            return;
        }
        NeedleFrame.Writer frame = new NeedleFrame.Writer(fids.size(), batch.maxReplyBytes());
        BatchCounts counts = new BatchCounts();
        ManyReads.collect(fids.size(), batch.window(),
                PlainRange.of(source, maxNeedleBytes, i -> NeedleWire.fileId(fids.get(i))),
                (i, ar) -> entry(frame, counts, ar)).onComplete(ar -> {
                    if (ar.failed()) {
                        meters.recordBatch(ReadMeters.EVENT_BUS, counts, System.nanoTime() - start);
                        fail(message, ar.cause(), start);
                        return;
                    }
                    Buffer body = frame.finish();
                    DeliveryOptions options = new DeliveryOptions();
                    if (localReplies) {
                        options.setCodecName(LocalBufferCodec.NAME);
                    }
                    replies.add(() -> {
                        meters.recordBatch(ReadMeters.EVENT_BUS, counts, System.nanoTime() - start);
                        message.reply(body, options);
                    });
                });
    }

    /** One needle's entry in a readMany frame, counted in {@code counts}; its content is released. */
    private Void entry(NeedleFrame.Writer frame, BatchCounts counts, AsyncResult<NeedleContent> ar) {
        if (ar.failed()) {
            NeedleException failure = NeedleWire.failure(ar.cause());
            counts.read("none", ReadMeters.resultOf(ReadFailure.codeOf(ar.cause())));
            frame.failure(failure.code(), failure.getMessage());
            return null;
        }
        NeedleContent content = ar.result();
        try {
            NeedleStat stat = content.stat();
            if (frame.length() + stat.size() > batch.maxReplyBytes()) {
                counts.read(stat.source(), ReadMeters.resultOf(413));
                frame.failure(NeedleException.Kind.BAD_REQUEST.code, "too large: the reply would exceed"
                        + " sidecar.batch.maxReplyBytes ("
                        + batch.maxReplyBytes() + " bytes); read " + stat.fid() + " in another call");
                return null;
            }
            frame.needle(stat, content.chunks());
            counts.served(stat.source(), stat.size());
        } finally {
            content.release();
        }
        return null;
    }

    private void stat(Message<Object> message, NeedleRequest request, long start) {
        source.stat(request.fid()).onComplete(ar -> {
            if (ar.failed()) {
                fail(message, ar.cause(), start);
                return;
            }
            NeedleStat s = ar.result();
            replies.add(() -> {
                message.reply(NeedleWire.info(s).toJson());
                meters.recordRead(s.source(), "ok", System.nanoTime() - start);
            });
        });
    }

    private void fail(Message<Object> message, Throwable cause, long start) {
        NeedleException failure = NeedleWire.failure(cause); // a needle too large: 400 "too large: ..." (no 413 here)
        // The meters keep a needle too large (413) apart from a malformed request.
        int code = cause instanceof ReadFailure rf ? rf.code() : failure.code();
        replies.add(() -> {
            meters.recordRead("none", ReadMeters.resultOf(code), System.nanoTime() - start);
            message.fail(failure.code(), failure.getMessage());
        });
    }
}
