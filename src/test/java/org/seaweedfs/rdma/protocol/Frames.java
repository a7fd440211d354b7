package org.seaweedfs.rdma.protocol;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/** Hand-built frames, for inputs the codec itself would never write. */
final class Frames {
    @FunctionalInterface
    interface Body {
        void write(MessageBufferPacker body) throws IOException;
    }

    private Frames() {
    }

    static byte[] frame(MessageType type, long requestId, Body body) {
        return frame(ControlCodec.PROTOCOL_VERSION, type.wireId(), requestId, body);
    }

    static byte[] frame(int version, int typeId, long requestId, Body body) {
        try (MessageBufferPacker packer = MessagePack.newDefaultBufferPacker()) {
            byte[] header = {'S', 'W', (byte) version, (byte) typeId, 0, 0, 0, 0, 0, 0, 0, 0};
            SyncEntryReader.LONG.set(header, 4, requestId);
            packer.writePayload(header);
            body.write(packer);
            return packer.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
