package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import org.openucx.jucx.ucp.UcpRemoteKey;

/** A one-sided get of {@code length} bytes from the peer's memory into local memory. */
final class GetOp extends ChannelOp<Void> {

    private final long remoteAddress;
    private final UcxRemoteKey key;
    private final long localAddress;
    private final long length;

    GetOp(UcxChannel channel, Context context, long remoteAddress, UcxRemoteKey key, long localAddress, long length) {
        super(channel, context);
        this.remoteAddress = remoteAddress;
        this.key = key;
        this.localAddress = localAddress;
        this.length = length;
    }

    @Override
    void start() {
        UcpRemoteKey ucpKey = key.ucpKey();
        if (ucpKey == null) {
            fail(new UcxTransportException("remote key is closed on " + channel));
            return;
        }
        channel.endpoint().getNonBlocking(remoteAddress, ucpKey, localAddress, length, this);
    }

    /** Whether this get was issued with {@code k} (whose native key must then outlive it). */
    boolean uses(UcxRemoteKey k) {
        return key == k;
    }

    @Override
    void succeeded() {
        channel.metrics().getCompleted(length);
    }

    @Override
    String describe() {
        return "get of " + length + " bytes at 0x" + Long.toHexString(remoteAddress);
    }
}
