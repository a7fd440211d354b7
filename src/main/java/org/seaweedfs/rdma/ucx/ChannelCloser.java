package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.ucp.UcpRequest;
import org.seaweedfs.rdma.polling.PollingPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * A channel's close sequence: an orderly close (flush, then close the endpoint), a failure (close at once), or the
 * worker's shutdown; then what is pending fails, keys and frames go, and whoever waits for the close is told.
 * Owner thread only.
 */
final class ChannelCloser {

    private static final Logger log = LoggerFactory.getLogger(ChannelCloser.class);

    private final UcxChannel channel;
    private final UcxWorkerVerticle owner;
    private boolean endpointClosing;
    private Handler<Throwable> closeHandler;
    private Context closeContext;
    private final List<Promise<Void>> closePromises = new ArrayList<>();
    private final List<Context> closePromiseContexts = new ArrayList<>();

    ChannelCloser(UcxChannel channel, UcxWorkerVerticle owner) {
        this.channel = channel;
        this.owner = owner;
    }

    /** Whether the endpoint is being (or has been) closed. */
    boolean endpointClosing() {
        return endpointClosing;
    }

    /** Sets the handler told of the close; runs it at once if the channel is already closed. */
    void setHandler(Handler<Throwable> handler, Context context) {
        if (channel.isClosed()) {
            if (handler != null) {
                UcxTransportException cause = channel.closeCause();
                owner.loop().complete(context, () -> handler.handle(cause));
            }
            return;
        }
        closeHandler = handler;
        closeContext = context;
    }

    /**
     * A local close: flushes outstanding operations, then closes the endpoint; {@code promise} completes when closed.
     */
    void closeOrderly(Promise<Void> promise, Context context) {
        if (channel.isClosed()) {
            owner.loop().complete(context, promise::tryComplete);
            return;
        }
        closePromises.add(promise);
        closePromiseContexts.add(context);
        if (!channel.closing(null)) {
            return; // already closing
        }
        UcxCallback flushed = new UcxCallback() {
            @Override
            public void onSuccess(UcpRequest request) {
                owner.loop().execute(LoopTask.of(() -> closeEndpoint(true)));
            }

            @Override
            public void onError(int ucsStatus, String errorMsg) {
                owner.loop().execute(LoopTask.of(() -> closeEndpoint(false)));
            }
        };
        try {
            channel.endpoint().flushNonBlocking(flushed);
        } catch (UcxException e) {
            closeEndpoint(false);
        }
    }

    /** Inside a UCX callback or a task: the channel failed. Its endpoint is force-closed right after this pass. */
    void fail(UcxTransportException cause) {
        if (channel.isClosed() || endpointClosing) {
            return;
        }
        channel.closing(cause);
        log.debug("Closing {}: {}", channel, cause.getMessage());
        // Never close an endpoint inside a UCX callback: do it right after this progress pass.
        owner.loop().execute(LoopTask.of(() -> closeEndpoint(false)));
    }

    /** Outside callbacks, after the worker was flushed: the worker stops. */
    void shutdown(UcxTransportException cause) {
        channel.closing(cause);
        closeEndpoint(true);
    }

    /**
     * Outside callbacks: closes the endpoint once and finishes when UCX says it is closed.
     * {@code afterFlush}: our own operations were flushed, so keys go first (the orderly order). The endpoint is
     * force-closed whenever peer error handling is on, even after a flush: UCX 1.13 aborts the process ("pending
     * request ... should have been flushed") when a flush-mode close meets replies to the peer's emulated gets still
     * queued on a TCP lane. Without peer error handling a forced close would be fatal for the peer, so it flushes.
     */
    private void closeEndpoint(boolean afterFlush) {
        if (endpointClosing || channel.isClosed()) {
            return;
        }
        endpointClosing = true;
        channel.closing(null);
        owner.forget(channel);
        owner.lanes().channelClosed(channel, channel.closedError());
        if (afterFlush) {
            channel.keys().closeAll(); // orderly: keys before their endpoint
        }
        UcpRequest closing = null;
        if (channel.endpoint() != null) {
            try {
                closing = owner.settings().peerErrorHandling()
                        ? channel.endpoint().closeNonBlockingForce() : channel.endpoint().closeNonBlockingFlush();
            } catch (UcxException e) {
                log.debug("Closing the endpoint of {} failed: {}", channel, e.getMessage());
            }
        }
        // A forced close purges the endpoint's requests (a flushing one only starts once ours completed): what is
        // still pending is failed now, and UCX's late callbacks for it are ignored.
        channel.pending().failAll(channel.closedError());
        channel.keys().closeAll();
        owner.loop().watch(closing, PollingPolicy.CLOSE_TIMEOUT_MS, this::closed);
    }

    private void closed() {
        channel.closed();
        UcxTransportException cause = channel.closeCause();
        channel.handshake().closed(cause);
        Handler<Throwable> handler = closeHandler;
        if (handler != null) {
            owner.loop().complete(closeContext, () -> handler.handle(cause));
        }
        for (int i = 0; i < closePromises.size(); i++) {
            Promise<Void> p = closePromises.get(i);
            owner.loop().complete(closePromiseContexts.get(i), p::tryComplete);
        }
        closePromises.clear();
        closePromiseContexts.clear();
        if (cause != null) {
            log.info("UCX channel closed: {}", cause.getMessage());
        }
    }
}
