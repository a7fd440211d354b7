package org.seaweedfs.rdma.ucx;

import io.netty.buffer.ByteBuf;
import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.ucp.UcpAmData;
import org.openucx.jucx.ucp.UcpRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A channel's incoming active-message frames: eager ones copied out in the callback, rendezvous ones received into a
 * slot filled later, all delivered in arrival order to the frame handler's context; frames that come before a handler
 * is set are held, up to a bound. Owner thread only.
 */
final class InboundFrames {

    private static final Logger log = LoggerFactory.getLogger(InboundFrames.class);
    /** Frames held for a server channel whose frame handler is not set yet; a peer flooding it is cut off. */
    private static final int MAX_EARLY_FRAMES = 4096;

    private final UcxChannel channel;
    private final ArrayDeque<Slot> inbound = new ArrayDeque<>();
    private final List<Buffer> early = new ArrayList<>();
    private Handler<Buffer> handler;
    private Context handlerContext;

    /** A frame slot in arrival order; rendezvous frames fill theirs later, and frames are delivered in order. */
    private static final class Slot {
        Buffer data;
        boolean ready;
    }

    InboundFrames(UcxChannel channel) {
        this.channel = channel;
    }

    /** Inside a UCX callback: a frame of {@code length} bytes (within bounds). Copies the data out. */
    void arrived(UcpAmData data, long length) {
        Slot slot = new Slot();
        inbound.add(slot);
        if (data.isDataValid()) {
            slot.data = NativeMemory.copyOut(data.getDataAddress(), length);
            slot.ready = true;
            deliverReady();
        } else {
            receiveRendezvous(data, slot, (int) length);
        }
    }

    private void receiveRendezvous(UcpAmData data, Slot slot, int length) {
        ByteBuf target = NativeMemory.directBuffer(length);
        UcxCallback done = new UcxCallback() {
            private boolean finished;

            @Override
            public void onSuccess(UcpRequest request) {
                if (finish()) {
                    slot.data = NativeMemory.copyOut(NativeMemory.writeAddress(target), length);
                    target.release();
                    slot.ready = true;
                    deliverReady();
                }
            }

            @Override
            public void onError(int ucsStatus, String errorMsg) {
                if (finish()) {
                    target.release();
                    slot.ready = true; // dropped: data stays null
                    channel.metrics().error();
                    log.warn("Receiving a " + length + "-byte frame on " + channel + " failed: " + errorMsg);
                    deliverReady();
                }
            }

            private boolean finish() {
                boolean first = !finished;
                finished = true;
                return first;
            }
        };
        try {
            data.receive(NativeMemory.writeAddress(target), done);
        } catch (UcxException e) {
            done.onError(e.getStatus(), e.getMessage());
        }
    }

    private void deliverReady() {
        while (!inbound.isEmpty() && inbound.peek().ready) {
            Buffer frame = inbound.poll().data;
            if (frame == null) {
                continue;
            }
            channel.metrics().frameReceived(frame.length());
            Handler<Buffer> h = handler;
            if (h != null) {
                channel.loop().complete(handlerContext, () -> h.handle(frame));
            } else if (early.size() < MAX_EARLY_FRAMES) {
                early.add(frame);
            } else {
                channel.fail(new UcxTransportException(UcxChannel.hostPort(channel.peerAddress()) + " sent more than "
                        + MAX_EARLY_FRAMES + " frames before a frame handler was set on " + channel));
                return;
            }
        }
    }

    /** Sets the handler (on {@code context}); frames held so far go to it. */
    void setHandler(Handler<Buffer> h, Context context) {
        handler = h;
        handlerContext = context;
        if (h != null && !early.isEmpty()) {
            for (Buffer frame : early) {
                channel.loop().complete(context, () -> h.handle(frame));
            }
            early.clear();
        }
    }

    /** The channel closed: frames not delivered yet are dropped. */
    void clear() {
        early.clear();
        inbound.clear();
    }
}
