package org.seaweedfs.rdma.protocol;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessageInsufficientBufferException;
import org.msgpack.core.MessageIntegerOverflowException;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * Reads message fields from a frame body, checking every length against what is left of the frame before
 * allocating, and turning every msgpack failure into a BAD_FRAME ProtocolException that names the field.
 */
final class BodyReader {
    private final MessageUnpacker in;
    private final long bodyBytes;

    BodyReader(MessageUnpacker in, long bodyBytes) {
        this.in = in;
        this.bodyBytes = bodyBytes;
    }

    /** A message or nested record: an array of exactly {@code fields} elements. */
    void begin(String name, int fields) {
        int n = arrayHeader(name, Integer.MAX_VALUE, 0);
        if (n != fields) {
            throw FieldCheck.bad(name, "expected " + fields + " fields, got " + n);
        }
    }

    /** An array header of at most {@code max} elements, each at least {@code minElementBytes} long. */
    int arrayHeader(String field, int max, int minElementBytes) {
        int n;
        try {
            expect(field, ValueType.ARRAY);
            n = in.unpackArrayHeader();
        } catch (MessagePackException | IOException e) {
            throw failure(field, e);
        }
        if (n > max) {
            throw FieldCheck.bad(field, n + " elements, more than " + max);
        }
        if ((long) n * minElementBytes > remaining()) {
            throw FieldCheck.bad(field, n + " elements cannot fit in the " + remaining() + " bytes left in the frame");
        }
        return n;
    }

    /** An unsigned 64-bit value returned as a long's bits. */
    long u64(String field) {
        try {
            expect(field, ValueType.INTEGER);
            if (in.getNextFormat() == MessageFormat.UINT64) {
                return in.unpackBigInteger().longValue();
            }
            long value = in.unpackLong();
            if (value < 0) {
                throw FieldCheck.bad(field, "must not be negative, got " + value);
            }
            return value;
        } catch (MessagePackException | IOException e) {
            throw failure(field, e);
        }
    }

    long i64(String field) {
        try {
            expect(field, ValueType.INTEGER);
            return in.unpackLong();
        } catch (MessagePackException | IOException e) {
            throw failure(field, e);
        }
    }

    /** A signed value that must be in 0..Long.MAX_VALUE. */
    long nonNegative(String field) {
        long value = i64(field);
        FieldCheck.nonNegative(field, value);
        return value;
    }

    long u32(String field) {
        long value = i64(field);
        FieldCheck.u32(field, value);
        return value;
    }

    /** A u32 returned as an int's bits (cookies). */
    int u32Bits(String field) {
        return (int) u32(field);
    }

    int bounded(String field, int min, int max) {
        long value = i64(field);
        FieldCheck.range(field, value, min, max);
        return (int) value;
    }

    boolean bool(String field) {
        try {
            expect(field, ValueType.BOOLEAN);
            return in.unpackBoolean();
        } catch (MessagePackException | IOException e) {
            throw failure(field, e);
        }
    }

    /** Consumes a nil and says so; anything else is left for the next read. */
    boolean nil() {
        try {
            return in.tryUnpackNil();
        } catch (MessagePackException | IOException e) {
            throw failure("nil", e);
        }
    }

    /** A string of at most maxBytes strict UTF-8 bytes; nil gives null when {@code nullable}. */
    String string(String field, int maxBytes, boolean nullable) {
        byte[] utf8;
        try {
            if (nullable && in.tryUnpackNil()) {
                return null;
            }
            expect(field, ValueType.STRING);
            int n = in.unpackRawStringHeader();
            checkLength(field, n, maxBytes);
            utf8 = in.readPayload(n);
        } catch (MessagePackException | IOException e) {
            throw failure(field, e);
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(utf8)).toString();
        } catch (CharacterCodingException e) {
            throw FieldCheck.bad(field, "is not valid UTF-8");
        }
    }

    /** Binary data of at most maxBytes (and no more than the frame holds). */
    byte[] bin(String field, int maxBytes) {
        try {
            expect(field, ValueType.BINARY);
            int n = in.unpackBinaryHeader();
            checkLength(field, n, maxBytes);
            return in.readPayload(n);
        } catch (MessagePackException | IOException e) {
            throw failure(field, e);
        }
    }

    /** Fails when anything follows the last field. */
    void end(String name) {
        long left = remaining();
        if (left != 0) {
            throw FieldCheck.bad(name, left + " trailing bytes after the last field");
        }
    }

    private long remaining() {
        return bodyBytes - in.getTotalReadBytes();
    }

    private void checkLength(String field, int n, int maxBytes) {
        if (n < 0 || n > maxBytes) {
            throw FieldCheck.bad(field, "length " + Integer.toUnsignedString(n) + " above the bound of " + maxBytes);
        }
        if (n > remaining()) {
            throw FieldCheck.bad(field, "length " + n + " exceeds the " + remaining() + " bytes left in the frame");
        }
    }

    private void expect(String field, ValueType type) throws IOException {
        if (!in.hasNext()) {
            throw FieldCheck.bad(field, "missing: the frame ends before it");
        }
        ValueType actual = in.getNextFormat().getValueType();
        if (actual != type) {
            throw FieldCheck.bad(field, "expected " + type.name().toLowerCase() + ", got "
                    + actual.name().toLowerCase());
        }
    }

    private static ProtocolException failure(String field, Exception e) {
        if (e instanceof MessageInsufficientBufferException) {
            return FieldCheck.bad(field, "truncated");
        }
        if (e instanceof MessageIntegerOverflowException) {
            return FieldCheck.bad(field, "integer out of range");
        }
        return FieldCheck.bad(field, "malformed (" + e.getMessage() + ")");
    }
}
