package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;

/** Unpacks (or finds in the channel's cache) a peer's packed memory key. */
final class UnpackKeyOp extends ChannelOp<UcxRemoteKey> {

    private final byte[] packed;

    UnpackKeyOp(UcxChannel channel, Context context, byte[] packed) {
        super(channel, context);
        this.packed = packed;
    }

    @Override
    void start() {
        succeed(channel.remoteKey(packed));
    }

    @Override
    String describe() {
        return "unpack of a " + packed.length + "-byte remote key";
    }
}
