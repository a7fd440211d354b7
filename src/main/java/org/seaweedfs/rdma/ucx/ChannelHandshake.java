package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import io.vertx.core.Promise;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.UcxUtils;

import java.nio.ByteBuffer;

/**
 * A channel's hello exchange, which opens it: the client sends {@link ActiveMessages#HELLO}, the server answers
 * {@link ActiveMessages#HELLO_ACK}; each carries the sender's worker address for the peer's event-loop lanes. Then the
 * connect future completes (client) or the listener's accept handler runs (server). Owner thread only.
 */
final class ChannelHandshake {

    private final UcxChannel channel;
    private final UcxWorkerVerticle owner;
    private Promise<UcxChannel> connectPromise; // client side, until the ack or the close
    private Context connectContext;
    private UcxListener listener; // server side

    ChannelHandshake(UcxChannel channel, UcxWorkerVerticle owner) {
        this.channel = channel;
        this.owner = owner;
    }

    /** Client side: sends the hello; {@code promise} completes on {@code context} once the server acknowledged it. */
    void start(Promise<UcxChannel> promise, Context context) {
        this.connectPromise = promise;
        this.connectContext = context;
        send(ActiveMessages.HELLO);
    }

    /** Server side: the channel goes to {@code l}'s accept handler once the client's hello arrived. */
    void acceptFor(UcxListener l) {
        this.listener = l;
    }

    /** Server side: the client's hello arrived. Opens the channel, answers, hands it to the accept handler. */
    void helloReceived(byte[] workerAddress) {
        if (!channel.opened(workerAddress)) {
            return;
        }
        send(ActiveMessages.HELLO_ACK);
        UcxListener l = listener;
        if (l != null) {
            owner.loop().complete(l.acceptContext, () -> l.onAccept.handle(channel));
        }
    }

    /** Client side: the server acknowledged the hello. */
    void helloAcknowledged(byte[] workerAddress) {
        if (!channel.opened(workerAddress)) {
            return;
        }
        Promise<UcxChannel> promise = connectPromise;
        connectPromise = null;
        if (promise != null) {
            owner.loop().complete(connectContext, () -> promise.tryComplete(channel));
        }
    }

    /** The connect timer fired: a channel still connecting fails. */
    void timedOut(long timeoutMs) {
        if (channel.isConnecting()) {
            channel.fail(new UcxTransportException("UCX handshake " + (channel.isAccepted() ? "from " : "with ")
                    + UcxChannel.hostPort(channel.peerAddress()) + " did not complete within " + timeoutMs + " ms"));
        }
    }

    /** The channel closed: a connect still waiting fails with {@code cause}. */
    void closed(UcxTransportException cause) {
        Promise<UcxChannel> connect = connectPromise;
        connectPromise = null;
        if (connect != null) {
            UcxTransportException failure = cause != null ? cause : new UcxTransportException("connection to "
                    + UcxChannel.hostPort(channel.peerAddress()) + " was closed during the handshake");
            owner.loop().complete(connectContext, () -> connect.tryFail(failure));
        }
    }

    /** A handshake message, carrying this worker's address for the peer's lanes. */
    private void send(int amId) {
        ByteBuffer address = owner.workerAddress();
        try {
            channel.endpoint().sendAmNonBlocking(amId, 0L, 0L, UcxUtils.getAddress(address), address.remaining(),
                    ActiveMessages.SEND_FLAGS, new UcxCallback() {
                        @Override
                        public void onError(int ucsStatus, String errorMsg) {
                            // The endpoint error handler reports the failure; nothing else to do.
                        }
                    });
        } catch (UcxException e) {
            channel.fail(channel.operationError("handshake", e.getStatus(), e.getMessage()));
        }
    }
}
