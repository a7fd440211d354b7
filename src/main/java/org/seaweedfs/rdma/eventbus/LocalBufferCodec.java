package org.seaweedfs.rdma.eventbus;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.MessageCodec;

/**
 * Buffer codec whose local delivery hands over the same instance (Vert.x's built-in Buffer codec copies
 * it). Safe here because every reply buffer is a fresh heap copy the sender never touches again: the
 * receiver owns it. Across a cluster it is written length-prefixed like any other buffer.
 */
public final class LocalBufferCodec implements MessageCodec<Buffer, Buffer> {

    public static final String NAME = "seaweedfs.buffer.handover";

    /** Registers the codec on {@code bus} unless it already is (several verticles may share a bus). */
    public static void registerOn(EventBus bus) {
        try {
            bus.registerCodec(new LocalBufferCodec());
        } catch (IllegalStateException alreadyRegistered) {
            // another instance did it
        }
    }

    @Override
    public void encodeToWire(Buffer wire, Buffer body) {
        wire.appendInt(body.length()).appendBuffer(body);
    }

    @Override
    public Buffer decodeFromWire(int pos, Buffer wire) {
        int length = wire.getInt(pos);
        return wire.getBuffer(pos + 4, pos + 4 + length);
    }

    @Override
    public Buffer transform(Buffer body) {
        return body;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public byte systemCodecID() {
        return -1;
    }
}
