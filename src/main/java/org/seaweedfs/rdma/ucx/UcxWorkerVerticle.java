package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.seaweedfs.rdma.polling.PollingPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpAmData;
import org.openucx.jucx.ucp.UcpConnectionRequest;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpListenerParams;
import org.openucx.jucx.ucp.UcpMemMapParams;
import org.openucx.jucx.ucp.UcpMemory;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;
import org.openucx.jucx.ucs.UcsConstants;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Owns one UCX context and worker, progressed by a dedicated thread this verticle starts (never an event loop or a
 * worker-pool thread). Everything else hands that thread work through a queue; every future returned here, and by
 * the {@link UcxChannel}s it creates, completes on the Vert.x context of the caller.
 *
 * <p>Gets issued on an event loop of this verticle's Vert.x run on that event loop's own worker instead (a lane, see
 * {@link LaneRegistry}): workers share this context ({@code UcpParams.setMtWorkersShared}) and so its memory
 * registrations, and lanes connect to the peer's worker address exchanged in the handshake.
 *
 * <p>Undeploying closes, in order: every lane on its event loop (gets failed, endpoints and workers closed); then on
 * the owner thread outstanding operations are flushed, listeners closed, remote keys closed, endpoints closed
 * (progressed to completion), peers' emulated gets still in flight served until the worker is flushed and quiet
 * (UCX 1.13 crashes destroying a worker with get replies queued), memory deregistered; then the thread ends and the
 * worker and context are destroyed. Tasks handed to the thread after that are rejected, never run.
 */
public final class UcxWorkerVerticle extends VerticleBase {

    private static final Logger log = LoggerFactory.getLogger(UcxWorkerVerticle.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final UcxSettings settings;
    private final UcxMetrics metrics = new UcxMetrics();
    private final WorkerLoop loop;

    // Owner-thread state (the context is also read by event loops making lane workers).
    private volatile UcpContext ucpContext;
    private UcpWorker worker;
    private ByteBuffer workerAddress; // sent in the handshake, for the peer's lanes
    private volatile LaneRegistry lanes;
    private boolean lanesClosed = true; // whether every lane worker is gone, so the context may be destroyed
    private final Map<Long, UcxChannel> channels = new HashMap<>();
    private final Set<UcxListener> listeners = new LinkedHashSet<>();
    private final Set<UcxMemoryRegion> regions = new LinkedHashSet<>();
    private Promise<Void> terminated;

    public UcxWorkerVerticle(UcxSettings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
        // JUCX's utilities (addresses of buffers) are native too, and only loading a UCX context loads them: a
        // registration may come before the worker thread made its context.
        UcxEnvironment.loadUcx();
        this.loop = new WorkerLoop("ucx-worker-" + INSTANCES.incrementAndGet(), settings.idlePollMicros());
    }

    public UcxWorkerVerticle() {
        this(UcxSettings.defaults());
    }

    public UcxSettings settings() {
        return settings;
    }

    public UcxMetrics metrics() {
        return metrics;
    }

    /**
     * Event-loop lane workers made so far (for diagnostics and tests; open lanes are in {@link UcxMetrics#lanes()}).
     */
    public int laneWorkers() {
        LaneRegistry registry = lanes;
        return registry == null ? 0 : registry.workerCount();
    }

    /** The thread that owns the UCX worker (for diagnostics and tests). */
    public Thread ownerThread() {
        return loop.thread();
    }

    @Override
    public Future<?> start() {
        Promise<Void> started = Promise.promise();
        terminated = Promise.promise();
        Context context = this.context;
        Map<String, String> config = settings.contextConfig();
        loop.start(() -> openWorker(config), this::closeWorker,
                failure -> context.runOnContext(v -> {
                    if (failure == null) {
                        lanes = new LaneRegistry(this, vertx, ucpContext);
                        started.complete();
                    } else {
                        started.fail(new UcxTransportException("UCX worker could not start: " + failure.getMessage(),
                                failure));
                    }
                }));
        return started.future().onSuccess(v -> logStartup(config));
    }

    private void logStartup(Map<String, String> config) {
        String name = loop.thread().getName();
        log.info("UCX worker " + name + " started; context settings " + config + "; UCX_* environment "
                + UcxEnvironment.current() + "; peer error handling "
                        + (settings.peerErrorHandling() ? "on" : "OFF")
                + "; on-demand paging " + (settings.onDemandPaging() ? "on" : "off")
                + "; idle poll " + settings.idlePollMicros() + " µs");
        for (String warning : UcxEnvironment.gaps()) {
            log.warn("UCX worker " + name + ": " + warning);
        }
        for (String warning : settings.overriddenEnvironment(System.getenv())) {
            log.warn("UCX worker " + name + ": " + warning);
        }
    }

    /**
     * Logs the lanes UCX builds with these settings, as {@code ucx_info} (if installed) reports them. It runs a
     * second process that sets up UCX once more, on a worker thread: the server calls it once it is ready, so that
     * the probe never competes with the start for CPU.
     */
    public Future<String> logLanes() {
        String name = loop.thread().getName();
        return vertx.executeBlocking(() -> UcxConfigReport.probeLanes(settings.contextConfig(),
                        settings.peerErrorHandling()), false)
                .onSuccess(report -> log.info("UCX lanes with these settings (" + name + "): " + report))
                .onFailure(e -> log.info("UCX lanes not probed: " + e.getMessage()));
    }

    @Override
    public Future<?> stop() {
        Promise<Void> done = terminated;
        LaneRegistry registry = lanes;
        UcxTransportException stopping =
                new UcxTransportException("UCX worker " + loop.thread().getName() + " is stopping");
        Future<Boolean> lanesGone = registry == null ? Future.succeededFuture(true)
                : registry.closeAll(stopping, PollingPolicy.CLOSE_TIMEOUT_MS);
        Context context = this.context;
        lanesGone.onComplete(ar -> hand(context, ignored -> {
            lanesClosed = ar.succeeded() && ar.result();
            shutdown(stopping); // done completes once the owner thread has closed the worker
        }, cause -> {
            done.tryComplete(); // the loop had already stopped
            return Future.<Void>succeededFuture();
        }));
        Thread thread = loop.thread();
        return done.future().compose(v -> vertx.executeBlocking(() -> {
            thread.join(PollingPolicy.CLOSE_TIMEOUT_MS);
            return null;
        }, false)).onSuccess(v -> log.info("UCX worker " + thread.getName() + " stopped"));
    }

    /** Listens on {@code host:port} (0 = any free port); accepted channels go to {@code onAccept} on this context. */
    public Future<UcxListener> listen(String host, int port, Handler<UcxChannel> onAccept) {
        Objects.requireNonNull(onAccept, "onAccept");
        if (port < 0 || port > 65535) {
            return Future.failedFuture(new IllegalArgumentException("port must be 0..65535, got " + port));
        }
        Context context = callerContext();
        return resolve(context, host, port).compose(address -> submit(context, () -> {
            UcxListener[] holder = new UcxListener[1];
            UcpListenerParams params = new UcpListenerParams().setSockAddr(address)
                    .setConnectionHandler(request -> onConnectionRequest(holder[0], request));
            holder[0] = new UcxListener(this, worker.newListener(params), onAccept, context);
            listeners.add(holder[0]);
            log.info("UCX listening on " + UcxChannel.hostPort(holder[0].address()));
            return holder[0];
        }).recover(e -> Future.failedFuture(new UcxTransportException("cannot listen on " + host + ":" + port
                // UCX reports a port in use as "Device is busy": say what it means.
                + " (is the port in use by another process?): " + e.getMessage(), e))));
    }

    /** Connects to a listener; the channel is returned once the handshake is done. */
    public Future<UcxChannel> connect(String host, int port) {
        if (port <= 0 || port > 65535) {
            return Future.failedFuture(new IllegalArgumentException("port must be 1..65535, got " + port));
        }
        Context context = callerContext();
        return resolve(context, host, port).compose(address -> hand(context,
                promise -> openChannel(address, promise, context), Future::failedFuture));
    }

    /**
     * Registers the remaining bytes of a direct (or mapped) buffer for remote gets. The region keeps the buffer
     * strongly referenced until {@link #deregister}.
     */
    public Future<UcxMemoryRegion> register(ByteBuffer buffer) {
        if (buffer == null || !buffer.isDirect()) {
            return Future.failedFuture(new IllegalArgumentException("only direct or mapped buffers can be registered"));
        }
        if (!buffer.hasRemaining()) {
            return Future.failedFuture(new IllegalArgumentException("buffer has no remaining bytes to register"));
        }
        long address = UcxUtils.getAddress(buffer);
        long length = buffer.remaining();
        return submit(callerContext(), () -> {
            UcpMemMapParams params = new UcpMemMapParams().setAddress(address).setLength(length);
            if (settings.onDemandPaging()) {
                params.nonBlocking(); // on-demand paging where the device has it: read-only mappings register on IB
            }
            return track(buffer, ucpContext.memoryMap(params), address, length);
        });
    }

    /**
     * Allocates {@code length} bytes of UCX memory and registers them. Without RDMA hardware only UCX-allocated memory
     * gets one-sided shared-memory lanes (registered file memory is read over emulated TCP lanes, served by this
     * worker's thread). The region's buffer is a writable view of that memory, valid until {@link #deregister}.
     */
    public Future<UcxMemoryRegion> allocate(int length) {
        if (length <= 0) {
            return Future.failedFuture(new IllegalArgumentException("length must be positive, got " + length));
        }
        return submit(callerContext(), () -> {
            UcpMemory memory = ucpContext.memoryMap(new UcpMemMapParams().allocate().setLength(length));
            ByteBuffer view = UcxUtils.getByteBufferView(memory.getAddress(), length);
            return track(view, memory, memory.getAddress(), length);
        });
    }

    private UcxMemoryRegion track(ByteBuffer buffer, UcpMemory memory, long address, long length) {
        ByteBuffer packed = memory.getRemoteKeyBuffer();
        byte[] key = new byte[packed.remaining()];
        packed.get(key);
        UcxMemoryRegion region = new UcxMemoryRegion(buffer, memory, address, length, key);
        regions.add(region);
        return region;
    }

    /** Releases a registration; peers' gets of it fail afterwards. */
    public Future<Void> deregister(UcxMemoryRegion region) {
        Objects.requireNonNull(region, "region");
        return submit(callerContext(), () -> {
            if (regions.remove(region)) {
                region.deregister();
            }
            return null;
        });
    }

    // ---- package-private ----

    WorkerLoop loop() {
        return loop;
    }

    /** The lane registry (null before start). */
    LaneRegistry lanes() {
        return lanes;
    }

    /** Owner thread: this worker's address, sent to peers in the handshake (read-only, valid while deployed). */
    ByteBuffer workerAddress() {
        return workerAddress;
    }

    /** The caller's Vert.x context (or a new one of this verticle's Vert.x for a plain thread). */
    Context callerContext() {
        if (vertx == null && Vertx.currentContext() == null) {
            throw new IllegalStateException("UcxWorkerVerticle is not deployed");
        }
        return VertxInternals.callerContext(vertx);
    }

    /** Owner thread: the channel no longer owns an endpoint id. */
    void forget(UcxChannel channel) {
        channels.remove(channel.endpointId(), channel);
    }

    Future<Void> closeListener(UcxListener listener) {
        return submit(callerContext(), () -> {
            if (listeners.remove(listener)) {
                listener.closeNow();
            }
            return null;
        });
    }

    /** A call for the owner thread whose value (or exception) is its outcome. */
    interface LoopCall<T> {
        T call() throws Exception;
    }

    /**
     * Work for the owner thread that settles {@code promise} itself, now or later (through {@link
     * WorkerLoop#complete}).
     */
    interface LoopWork<T> {
        void run(Promise<T> promise) throws Exception;
    }

    /** Runs {@code call} on the owner thread; its outcome completes the future on {@code context}. */
    <T> Future<T> submit(Context context, LoopCall<T> call) {
        return submit(context, call, Future::failedFuture);
    }

    /**
     * As {@link #submit(Context, LoopCall)}; when the worker has stopped, the future has {@code whenStopped}'s outcome.
     */
    <T> Future<T> submit(Context context, LoopCall<T> call, java.util.function.Function<UcxTransportException,
            Future<T>> whenStopped) {
        return hand(context, promise -> {
            T value = call.call();
            loop.complete(context, () -> promise.tryComplete(value));
        }, whenStopped);
    }

    /**
     * The one way callers hand work to the owner thread (channel operations are their own {@link LoopTask}s, and
     * internal events use {@link LoopTask#of}): {@code work} runs there and settles the promise on {@code context};
     * an exception it throws fails it. When the worker has stopped before running it, the future has
     * {@code whenStopped}'s outcome instead, on {@code context}.
     */
    <T> Future<T> hand(Context context, LoopWork<T> work,
                       java.util.function.Function<UcxTransportException, Future<T>> whenStopped) {
        Promise<T> promise = Promise.promise();
        loop.execute(new LoopTask() {
            @Override
            public void runOnLoop() {
                try {
                    work.run(promise);
                } catch (Exception e) {
                    metrics.error();
                    Throwable failure = e instanceof UcxException u
                            ? new UcxTransportException("UCX call failed: " + u.getMessage(), u.getStatus()) : e;
                    loop.complete(context, () -> promise.tryFail(failure));
                }
            }

            @Override
            public void reject(UcxTransportException cause) {
                context.runOnContext(v -> whenStopped.apply(cause).onComplete(promise));
            }
        });
        return promise.future();
    }

    // ---- owner thread ----

    private UcpWorker openWorker(Map<String, String> config) {
        // Workers of several threads (the owner and the event-loop lanes) share the context and its registrations.
        UcpParams params = new UcpParams().requestRmaFeature().requestAmFeature().requestWakeupFeature()
                .setMtWorkersShared(true);
        config.forEach(params::setConfig);
        UcxLogFilter.install(); // before the first context: UCX checks its API version in every ucp_init
        ucpContext = new UcpContext(params);
        UcxLibrary.identify(); // once per process, now that libucp is loaded
        try {
            worker = ucpContext.newWorker(new UcpWorkerParams());
            workerAddress = worker.getAddress().asReadOnlyBuffer();
        } catch (RuntimeException e) {
            ucpContext.close();
            throw e;
        }
        onHandshake(ActiveMessages.HELLO, (channel, address) -> channel.handshake().helloReceived(address));
        onHandshake(ActiveMessages.HELLO_ACK, (channel, address) -> channel.handshake().helloAcknowledged(address));
        worker.setAmRecvHandler(ActiveMessages.FRAME, this::onFrame, ActiveMessages.RECV_FLAGS);
        return worker;
    }

    private void onHandshake(int amId, java.util.function.BiConsumer<UcxChannel, byte[]> step) {
        worker.setAmRecvHandler(amId, (header, headerLength, data, replyEp) -> {
            UcxChannel channel = channelOf(replyEp);
            if (channel != null) {
                step.accept(channel, peerWorkerAddress(data));
            }
            return UcsConstants.STATUS.UCS_OK;
        }, ActiveMessages.RECV_FLAGS);
    }

    /** The worker address a handshake message carries, or null (an older peer, or one too large to trust). */
    private static byte[] peerWorkerAddress(UcpAmData data) {
        long length = data.getLength();
        if (length <= 0 || length > ActiveMessages.MAX_WORKER_ADDRESS_BYTES || !data.isDataValid()) {
            if (length > 0) {
                log.debug("Ignoring a " + length
                        + "-byte worker address in a UCX handshake: no event-loop lanes to that peer");
            }
            return null;
        }
        byte[] address = new byte[(int) length];
        UcxUtils.getByteBufferView(data.getDataAddress(), (int) length).get(address);
        return address;
    }

    private int onFrame(long header, long headerLength, UcpAmData data, UcpEndpoint replyEp) {
        UcxChannel channel = channelOf(replyEp);
        if (channel == null) {
            metrics.error();
            log.debug("Dropped a UCX frame from an unknown endpoint");
            return UcsConstants.STATUS.UCS_OK;
        }
        return channel.frameArrived(data);
    }

    private UcxChannel channelOf(UcpEndpoint replyEp) {
        return replyEp == null ? null : channels.get(replyEp.getNativeId());
    }

    private UcpEndpointParams endpointParams(String name) {
        UcpEndpointParams params = new UcpEndpointParams().setName(name)
                .setErrorHandler((ep, status, message) -> {
                    UcxChannel channel = channels.get(ep.getNativeId());
                    if (channel != null) {
                        metrics.error();
                        channel.endpointFailed(status, message);
                    }
                });
        return settings.peerErrorHandling() ? params.setPeerErrorHandlingMode() : params;
    }

    private void openChannel(InetSocketAddress address, Promise<UcxChannel> promise, Context context) {
        UcxChannel channel = new UcxChannel(this, address, false);
        try {
            UcpEndpoint ep = worker.newEndpoint(endpointParams(channel.toString()).setSocketAddress(address));
            channel.attach(ep);
        } catch (UcxException e) {
            metrics.error();
            loop.complete(context, () -> promise.tryFail(new UcxTransportException(
                    "UCX connect to " + UcxChannel.hostPort(address) + " failed: " + e.getMessage(), e.getStatus())));
            return;
        }
        channels.put(channel.endpointId(), channel);
        channel.handshake().start(promise, context);
        armHandshakeTimeout(channel);
    }

    /** Inside progress: a client asks to connect. The endpoint is created right after this pass. */
    private void onConnectionRequest(UcxListener listener, UcpConnectionRequest request) {
        loop.execute(LoopTask.of(() -> accept(listener, request)));
    }

    private void accept(UcxListener listener, UcpConnectionRequest request) {
        if (listener == null || !listener.isOpen()) {
            request.reject();
            return;
        }
        UcxChannel channel = new UcxChannel(this, request.getClientAddress(), true);
        try {
            channel.attach(worker.newEndpoint(endpointParams(channel.toString()).setConnectionRequest(request)));
        } catch (UcxException e) {
            metrics.error();
            log.warn("Could not accept a UCX connection from " + UcxChannel.hostPort(request.getClientAddress())
                    + ": " + e.getMessage());
            return;
        }
        channel.handshake().acceptFor(listener);
        channels.put(channel.endpointId(), channel);
        armHandshakeTimeout(channel);
    }

    private void armHandshakeTimeout(UcxChannel channel) {
        long timeout = UcxSettings.CONNECT_TIMEOUT_MS;
        vertx.setTimer(timeout, id -> loop.execute(LoopTask.of(() -> channel.handshake().timedOut(timeout))));
    }

    private void shutdown(UcxTransportException stopping) {
        try {
            boolean[] flushed = {false};
            loop.watch(worker.flushNonBlocking(null), PollingPolicy.CLOSE_TIMEOUT_MS, () -> flushed[0] = true);
            loop.progressUntil(() -> flushed[0], PollingPolicy.CLOSE_TIMEOUT_MS);
        } catch (UcxException e) {
            log.debug("UCX worker flush failed: " + e.getMessage());
        }
        for (UcxListener listener : listeners) {
            listener.closeNow(); // no new peers while the ones there are told to stop
        }
        listeners.clear();
        for (UcxChannel channel : new ArrayList<>(channels.values())) {
            channel.closer().shutdown(stopping);
        }
        channels.clear();
        loop.progressUntil(() -> !loop.hasWatches(), PollingPolicy.CLOSE_TIMEOUT_MS);
        serveUntilQuiet();
        for (UcxMemoryRegion region : regions) {
            region.deregister();
        }
        regions.clear();
        loop.stopAfterThisPass();
    }

    /**
     * Owner thread, after the channels were closed: keeps serving the peers' emulated gets (their lanes stop issuing
     * once they see the channel closed, and finish the gets in flight) until the worker is flushed and quiet. UCX
     * 1.13 must not tear down an endpoint with replies to a peer's software-emulated get still queued on it: its
     * purge of such a reply ({@code ucp_request_send_state_ff}) releases memory by the request's {@code datatype},
     * which the get-reply path never sets, and a stale value from a recycled request sends
     * {@code ucp_mem_rereg_mds} to a garbage pointer (SIGSEGV in {@code ucp_worker_destroy}). A worker flush
     * completes only once those replies are sent.
     */
    private void serveUntilQuiet() {
        long deadline = System.nanoTime() + PollingPolicy.CLOSE_TIMEOUT_MS * 1_000_000L;
        while (System.nanoTime() - deadline < 0) {
            long remainingMs = Math.max(1, (deadline - System.nanoTime()) / 1_000_000L);
            boolean[] flushed = {false};
            try {
                loop.watch(worker.flushNonBlocking(null), remainingMs, () -> flushed[0] = true);
            } catch (UcxException e) {
                log.debug("UCX worker flush failed: " + e.getMessage());
                return;
            }
            loop.progressUntil(() -> flushed[0], remainingMs);
            if (!loop.progressQuietly(remainingMs)) {
                return; // nothing arrived for a while after the flush: no peer get is being served
            }
        }
        log.warn("UCX worker " + loop.thread().getName() + ": peers were still reading after "
                + PollingPolicy.CLOSE_TIMEOUT_MS + " ms; closing anyway");
    }

    private void closeWorker(UcpWorker w) {
        try {
            w.close();
        } finally {
            if (lanesClosed) {
                ucpContext.close();
            } else {
                // Destroying the context under a worker still in use would crash the process: leak it instead.
                log.warn("UCX worker " + loop.thread().getName() + ": event-loop lanes did not close in time;"
                        + " leaving the UCX context open");
            }
            Promise<Void> done = terminated;
            context.runOnContext(v -> done.tryComplete());
        }
    }

    private Future<InetSocketAddress> resolve(Context context, String host, int port) {
        if (host == null || host.isBlank()) {
            return Future.failedFuture(new IllegalArgumentException("host must not be empty"));
        }
        return context.executeBlocking(() -> {
            InetSocketAddress address = new InetSocketAddress(host, port);
            if (address.isUnresolved()) {
                throw new UcxTransportException("cannot resolve host '" + host + "'");
            }
            return address;
        }, false);
    }
}
