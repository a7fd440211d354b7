package org.seaweedfs.rdma.ucx;

import io.netty.buffer.ByteBuf;
import io.vertx.core.Context;

/** Sends one control frame as an active message; the frame was copied into pooled direct memory by the caller. */
final class SendFrameOp extends ChannelOp<Void> {

    private final ByteBuf data;
    private final int length;
    private boolean released;

    SendFrameOp(UcxChannel channel, Context context, ByteBuf data) {
        super(channel, context);
        this.data = data;
        this.length = data.readableBytes();
    }

    @Override
    void start() {
        channel.endpoint().sendAmNonBlocking(ActiveMessages.FRAME, 0L, 0L, NativeMemory.address(data), length,
                ActiveMessages.SEND_FLAGS, this);
    }

    @Override
    void release() {
        if (!released) {
            released = true;
            data.release();
        }
    }

    @Override
    void succeeded() {
        channel.metrics().frameSent(length);
    }

    @Override
    String describe() {
        return "send of a " + length + "-byte frame";
    }
}
