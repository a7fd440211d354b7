package org.seaweedfs.rdma.protocol;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.msgpack.core.MessageBufferPacker;

/** Writes message fields in the protocol's msgpack forms, failing fast once the frame would exceed its bound. */
final class BodyWriter {
    private static final byte UINT64 = (byte) 0xcf;

    private final MessageBufferPacker out;
    private final int maxFrameBytes;
    private final byte[] uint64 = new byte[9];

    BodyWriter(MessageBufferPacker out, int maxFrameBytes) {
        this.out = out;
        this.maxFrameBytes = maxFrameBytes;
    }

    void raw(byte[] bytes) {
        try {
            out.writePayload(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void array(int size) {
        try {
            out.packArrayHeader(size);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
        try {
            out.packLong(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void bool(boolean value) {
        try {
            out.packBoolean(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A string, or nil for null. */
    void string(String value) {
        try {
            if (value == null) {
                out.packNil();
                return;
            }
            byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
            out.packRawStringHeader(utf8.length);
            out.writePayload(utf8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Binary data, referenced rather than copied into the packer (the array must not change until encoded). */
    void bin(byte[] value) {
        ensureRoom(value.length);
        try {
            out.packBinaryHeader(value.length);
            out.addPayload(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void ensureRoom(long moreBytes) {
        long total = out.getTotalWrittenBytes() + moreBytes;
        if (total > maxFrameBytes) {
            throw new ProtocolException(ErrorCode.TOO_LARGE,
                    "frame would be at least " + total + " bytes, above the maximum of " + maxFrameBytes);
        }
    }
}
