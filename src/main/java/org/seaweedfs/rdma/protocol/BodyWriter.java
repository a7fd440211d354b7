package org.seaweedfs.rdma.protocol;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.msgpack.core.MessageBufferPacker;

/** Writes message fields in the protocol's msgpack forms, failing fast once the frame would exceed its bound. */
final class BodyWriter {
    private static final byte UINT64 = (byte) 0xcf;

    /** A packer call; MessageBufferPacker declares IOException but, writing to memory, never throws it. */
    private interface Step {
        void run() throws IOException;
    }

    private final MessageBufferPacker out;
    private final int maxFrameBytes;
    private final byte[] uint64 = new byte[9];

    BodyWriter(MessageBufferPacker out, int maxFrameBytes) {
        this.out = out;
        this.maxFrameBytes = maxFrameBytes;
    }

    void raw(byte[] bytes) {
        write(() -> out.writePayload(bytes));
    }

    void array(int size) {
        write(() -> out.packArrayHeader(size));
    }

    /** An unsigned 64-bit value held in a long's bits (msgpack packLong would write the high half as negative). */
    void u64(long bits) {
        if (bits >= 0) {
            i64(bits);
            return;
        }
        uint64[0] = UINT64;
        SyncEntryReader.LONG.set(uint64, 1, bits);
        raw(uint64);
    }

    void i64(long value) {
        write(() -> out.packLong(value));
    }

    void bool(boolean value) {
        write(() -> out.packBoolean(value));
    }

    void nil() {
        write(out::packNil);
    }

    /** A string, or nil for null. */
    void string(String value) {
        if (value == null) {
            write(out::packNil);
            return;
        }
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        write(() -> out.packRawStringHeader(utf8.length).writePayload(utf8));
    }

    /** Binary data, referenced rather than copied into the packer (the array must not change until encoded). */
    void bin(byte[] value) {
        ensureRoom(value.length);
        write(() -> out.packBinaryHeader(value.length).addPayload(value));
    }

    void ensureRoom(long moreBytes) {
        long total = out.getTotalWrittenBytes() + moreBytes;
        if (total > maxFrameBytes) {
            throw new ProtocolException(ErrorCode.TOO_LARGE,
                    "frame would be at least " + total + " bytes, above the maximum of " + maxFrameBytes);
        }
    }

    private static void write(Step step) {
        try {
            step.run();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
