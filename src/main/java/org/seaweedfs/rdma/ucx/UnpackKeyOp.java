package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;

/** Unpacks (or finds in the channel's cache) a peer's packed memory key, as one more holder of it. */
final class UnpackKeyOp extends ChannelOp<UcxRemoteKey> {

    private final byte[] packed;

    UnpackKeyOp(UcxChannel channel, Context context, byte[] packed) {
        super(channel, context);
        this.packed = packed;
    }

    @Override
    void start() {
        UcxRemoteKey key = channel.remoteKey(packed);
        if (key == null) {
            fail(new IllegalStateException(channel + " already holds " + UcxSettings.MAX_REMOTE_KEYS
                    + " unpacked remote keys, the most one connection may hold; release keys no longer used"));
        } else {
            succeed(key);
        }
    }

    @Override
    String describe() {
        return "unpack of a " + packed.length + "-byte remote key";
    }
}
