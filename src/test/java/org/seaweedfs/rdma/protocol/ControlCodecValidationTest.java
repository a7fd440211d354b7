package org.seaweedfs.rdma.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ControlCodecValidationTest {
    private final ControlCodec codec = new ControlCodec(ControlCodec.MIN_MAX_FRAME_BYTES);

    private static ProtocolException fails(ErrorCode code, String messagePart, Executable action) {
        ProtocolException e = assertThrows(ProtocolException.class, action);
        assertEquals(code, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains(messagePart), () -> "'" + e.getMessage() + "' lacks '" + messagePart + "'");
        return e;
    }

    private ProtocolException decodeFails(ErrorCode code, String messagePart, byte[] frame) {
        return fails(code, messagePart, () -> codec.decode(frame));
    }

    @ParameterizedTest
    @EnumSource(MessageType.class)
    void everyTruncationIsABadFrame(MessageType type) {
        ControlCodec large = new ControlCodec();
        byte[] frame = large.encode(new RandomMessages(3).next(type));
        // Every cut within the fields, then a sample of cuts inside long payloads.
        for (int length = 0; length < frame.length; length += length < 256 ? 1 : 61) {
            byte[] truncated = Arrays.copyOf(frame, length);
            fails(ErrorCode.BAD_FRAME, "", () -> large.decode(truncated));
        }
    }

    @Test
    void shortHeaderIsNamed() {
        decodeFails(ErrorCode.BAD_FRAME, "shorter than the 12-byte header", new byte[] {'S', 'W', 1});
    }

    @Test
    void oversizedFrameIsTooLargeOnDecodeAndEncode() {
        byte[] big = new byte[ControlCodec.MIN_MAX_FRAME_BYTES + 1];
        big[0] = 'S';
        big[1] = 'W';
        big[11] = 9;
        assertEquals(9, decodeFails(ErrorCode.TOO_LARGE, "above the maximum", big).requestId());
        fails(ErrorCode.TOO_LARGE, "above the maximum", () -> codec.encode(new ReadThroughData(1, 0, 0,
                new byte[ControlCodec.MIN_MAX_FRAME_BYTES])));
        fails(ErrorCode.TOO_LARGE, "does not fit", () -> codec.encode(new Ping(1, 1), ByteBuffer.allocate(5)));
    }

    @Test
    void readThroughLongerThanAFrameIsTooLarge() {
        ReadThrough read = new ReadThrough(5, 1, 2, 3, 0, codec.maxReadThroughBytes() + 1);
        fails(ErrorCode.TOO_LARGE, "ReadThrough.length", () -> codec.encode(read));
        byte[] frame = new ControlCodec().encode(read);
        assertEquals(5, decodeFails(ErrorCode.TOO_LARGE, "ReadThrough.length", frame).requestId());
    }

    @Test
    void badMagicUnknownTypeAndFutureVersionAreRejected() {
        byte[] frame = codec.encode(new Ping(77, 1));
        byte[] magic = frame.clone();
        magic[0] = 'X';
        decodeFails(ErrorCode.BAD_FRAME, "bad magic", magic);
        byte[] version = frame.clone();
        version[2] = (byte) (ControlCodec.PROTOCOL_VERSION + 1);
        assertEquals(77,
                decodeFails(ErrorCode.UNSUPPORTED_VERSION, "frame version " + version[2], version).requestId());
        version[2] = 1; // version 1 of a message that is not frozen
        assertEquals(77, decodeFails(ErrorCode.UNSUPPORTED_VERSION, "frame version 1", version).requestId());
        for (int type : new int[] {0, 19, 99, 255}) {
            byte[] unknown = frame.clone();
            unknown[3] = (byte) type;
            assertEquals(77, decodeFails(ErrorCode.BAD_FRAME, "unknown message type " + type, unknown).requestId());
        }
    }

    @Test
    void trailingBytesAreRejected() {
        byte[] frame = codec.encode(new Lookup(1, 2, 3, 4));
        decodeFails(ErrorCode.BAD_FRAME, "1 trailing bytes", Arrays.copyOf(frame, frame.length + 1));
        byte[] twoMessages =
                Frames.frame(MessageType.PING, 1, b -> b.packArrayHeader(1).packLong(1).packArrayHeader(0));
        decodeFails(ErrorCode.BAD_FRAME, "trailing", twoMessages);
    }

    @Test
    void wrongFieldCountAndTypesAreNamed() {
        decodeFails(ErrorCode.BAD_FRAME, "Ping: expected 1 fields, got 2",
                Frames.frame(MessageType.PING, 1, b -> b.packArrayHeader(2).packLong(1).packLong(2)));
        decodeFails(ErrorCode.BAD_FRAME, "Ping: expected array, got map",
                Frames.frame(MessageType.PING, 1, b -> b.packMapHeader(0)));
        decodeFails(ErrorCode.BAD_FRAME, "Lookup.key: expected integer, got string",
                Frames.frame(MessageType.LOOKUP, 1, b -> b.packArrayHeader(3).packLong(1).packString("k").packLong(1)));
        decodeFails(ErrorCode.BAD_FRAME, "Ping.sentNanos: missing",
                Frames.frame(MessageType.PING, 1, b -> b.packArrayHeader(1)));
        decodeFails(ErrorCode.BAD_FRAME, "Hello.token: expected string, got integer",
                Frames.frame(MessageType.HELLO, 1, b -> b.packArrayHeader(3).packLong(1).packString("c").packLong(0)));
    }

    @Test
    void stringBoundsAndEncodingAreChecked() {
        String longId = "x".repeat(ProtocolLimits.MAX_ID_BYTES + 1);
        decodeFails(ErrorCode.BAD_FRAME, "Hello.clientId: length 257 above the bound of 256",
                Frames.frame(MessageType.HELLO, 1, b -> b.packArrayHeader(3).packLong(1).packString(longId).packNil()));
        fails(ErrorCode.BAD_FRAME, "Hello.clientId: longer than 256 bytes", () -> new Hello(1, 1, longId, null));
        // 128 two-byte characters: 128 chars but 256 bytes fits; one more does not.
        new Hello(1, 1, "é".repeat(128), null);
        fails(ErrorCode.BAD_FRAME, "Hello.clientId", () -> new Hello(1, 1, "é".repeat(129), null));
        decodeFails(ErrorCode.BAD_FRAME, "Hello.clientId: is required",
                Frames.frame(MessageType.HELLO, 1, b -> b.packArrayHeader(3).packLong(1).packString("").packNil()));
        decodeFails(ErrorCode.BAD_FRAME, "Hello.clientId: is not valid UTF-8", Frames.frame(MessageType.HELLO, 1,
                b ->
                        b.packArrayHeader(3).packLong(1).packRawStringHeader(2).writePayload(new byte[] {(byte) 0xC3,
                        0x28})
                        .packNil()));
        decodeFails(ErrorCode.BAD_FRAME, "Error.message: length", Frames.frame(MessageType.ERROR, 1,
                b -> b.packArrayHeader(3).packLong(1).packRawStringHeader(1 << 30)));
    }

    @Test
    void countsAndLengthsBeyondTheFrameAreRejectedBeforeAllocating() {
        decodeFails(ErrorCode.BAD_FRAME, "VolumeList.volumes: 60000 elements cannot fit", Frames.frame(
                MessageType.VOLUME_LIST, 1, b -> b.packArrayHeader(1).packArrayHeader(60_000)));
        decodeFails(ErrorCode.BAD_FRAME, "VolumeList.volumes: 2147483647 elements, more than 65536", Frames.frame(
                MessageType.VOLUME_LIST, 1, b -> b.packArrayHeader(1).packArrayHeader(Integer.MAX_VALUE)));
        decodeFails(ErrorCode.BAD_FRAME, "SyncEntries.entries: length 1073741824 exceeds", Frames.frame(
                MessageType.SYNC_ENTRIES, 0, b -> b.packArrayHeader(6).packLong(1).packLong(1).packLong(0)
                        .packLong(0).packBoolean(false).packBinaryHeader(1 << 30)));
        decodeFails(ErrorCode.BAD_FRAME, "SyncEntries.entries: length 7 is not a multiple of 20", Frames.frame(
                MessageType.SYNC_ENTRIES, 0, b -> b.packArrayHeader(6).packLong(1).packLong(1).packLong(0)
                        .packLong(16).packBoolean(false).packBinaryHeader(7).writePayload(new byte[7])));
        decodeFails(ErrorCode.BAD_FRAME, "Segment.remoteKey: length 5000 above the bound of 4096", Frames.frame(
                MessageType.VOLUME_LIST, 1, b -> b.packArrayHeader(1).packArrayHeader(1).packArrayHeader(9)
                        .packLong(1).packString("").packLong(3).packLong(1).packLong(100).packLong(0)
                        .packArrayHeader(1).packArrayHeader(5).packLong(0).packLong(0).packLong(10).packLong(0)
                        .packBinaryHeader(5000)));
    }

    @Test
    void negativeAndOverflowingNumbersAreRejected() {
        decodeFails(ErrorCode.BAD_FRAME, "Lookup.volumeId: must be an unsigned 32-bit value, got -1", Frames.frame(
                MessageType.LOOKUP, 1, b -> b.packArrayHeader(3).packLong(-1).packLong(1).packLong(1)));
        decodeFails(ErrorCode.BAD_FRAME, "Lookup.volumeId: must be an unsigned 32-bit value, got 4294967296",
                Frames.frame(MessageType.LOOKUP, 1,
                        b -> b.packArrayHeader(3).packLong(1L << 32).packLong(1).packLong(1)));
        decodeFails(ErrorCode.BAD_FRAME, "Lookup.key: must not be negative", Frames.frame(
                MessageType.LOOKUP, 1, b -> b.packArrayHeader(3).packLong(1).packLong(-5).packLong(1)));
        decodeFails(ErrorCode.BAD_FRAME, "Lookup.cookie", Frames.frame(
                MessageType.LOOKUP, 1, b -> b.packArrayHeader(3).packLong(1).packLong(1).packLong(-1)));
        decodeFails(ErrorCode.BAD_FRAME, "SyncRequest.fromPosition: must not be negative", Frames.frame(
                MessageType.SYNC_REQUEST, 1, b -> b.packArrayHeader(3).packLong(1).packLong(1).packLong(-8)));
        BigInteger maxU64 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
        decodeFails(ErrorCode.BAD_FRAME, "SyncRequest.fromPosition: integer out of range", Frames.frame(
                MessageType.SYNC_REQUEST, 1, b -> b.packArrayHeader(3).packLong(1).packLong(1).packBigInteger(maxU64)));
        decodeFails(ErrorCode.BAD_FRAME, "ReadThrough.length: must be in 1..2147483647, got 0", Frames.frame(
                MessageType.READ_THROUGH, 1, b -> b.packArrayHeader(5).packLong(1).packLong(1).packLong(1)
                        .packLong(0).packLong(0)));
        decodeFails(ErrorCode.BAD_FRAME, "Hello.protocolVersion: must be in 1..255, got 256", Frames.frame(
                MessageType.HELLO, 1, b -> b.packArrayHeader(3).packLong(256).packString("c").packNil()));
        decodeFails(ErrorCode.BAD_FRAME, "VolumeInfo.version: must be in 1..3, got 4", Frames.frame(
                MessageType.VOLUME_LIST, 1, b -> b.packArrayHeader(1).packArrayHeader(1).packArrayHeader(9)
                        .packLong(1).packString("").packLong(4).packLong(1).packLong(0).packLong(0).packArrayHeader(0)
                                .packNil()));
        Lookup max = (Lookup) codec.decode(Frames.frame(MessageType.LOOKUP, 1,
                b -> b.packArrayHeader(3).packLong(1).packBigInteger(maxU64).packLong(0xFFFF_FFFFL)));
        assertEquals(-1L, max.key());
        assertEquals(-1, max.cookie());
    }

    @Test
    void aVolumesFileMustNameAHostAndAnAbsolutePath() {
        decodeFails(ErrorCode.BAD_FRAME, "ServedFile.path: must be an absolute path", volumeWithFile(
                b -> b.packArrayHeader(4).packString("host").packString("data/1.dat").packLong(1).packLong(2)));
        decodeFails(ErrorCode.BAD_FRAME, "ServedFile.path: must be an absolute path without NUL bytes", volumeWithFile(
                b -> b.packArrayHeader(4).packString("host").packString("/data/1\0.dat").packLong(1).packLong(2)));
        decodeFails(ErrorCode.BAD_FRAME, "ServedFile.host: is required", volumeWithFile(
                b -> b.packArrayHeader(4).packString("").packString("/data/1.dat").packLong(1).packLong(2)));
        fails(ErrorCode.BAD_FRAME, "ServedFile.path: longer than 4096 bytes",
                () -> new ServedFile("host", "/" + "a".repeat(4096), 1, 2));
        decodeFails(ErrorCode.BAD_FRAME, "ServedFile", volumeWithFile(
                b -> b.packArrayHeader(3).packString("host").packString("/data/1.dat").packLong(1)));
    }

    /** A volume list of one normal volume whose ninth field (its file) {@code file} writes. */
    private static byte[] volumeWithFile(Frames.Body file) {
        return Frames.frame(MessageType.VOLUME_LIST, 1, b -> {
            b.packArrayHeader(1).packArrayHeader(1).packArrayHeader(9).packLong(1).packString("").packLong(3)
                    .packLong(1).packLong(0).packLong(0).packArrayHeader(0).packNil();
            file.write(b);
        });
    }

    @Test
    void requestIdsFollowTheDirectionOfTheMessage() {
        decodeFails(ErrorCode.BAD_FRAME, "Lookup.requestId: must not be 0",
                Frames.frame(MessageType.LOOKUP, 0, b -> b.packArrayHeader(3).packLong(1).packLong(1).packLong(1)));
        decodeFails(ErrorCode.BAD_FRAME, "VolumeChanged.requestId: must be 0 for a push",
                Frames.frame(MessageType.VOLUME_CHANGED, 4,
                        b -> b.packArrayHeader(3).packLong(1).packLong(1).packLong(1)));
        fails(ErrorCode.BAD_FRAME, "Pong.requestId", () -> new Pong(0, 1, 1));
    }

    @Test
    void unknownEnumValuesAreRejected() {
        decodeFails(ErrorCode.BAD_FRAME, "Error.code: unknown code 99", Frames.frame(MessageType.ERROR, 1,
                b -> b.packArrayHeader(3).packLong(99).packString("m").packBoolean(false)));
        decodeFails(ErrorCode.BAD_FRAME, "VolumeChanged.reason: unknown reason 0", Frames.frame(
                MessageType.VOLUME_CHANGED, 0, b -> b.packArrayHeader(3).packLong(1).packLong(1).packLong(0)));
    }

    @Test
    void nestedFailuresNameTheirPathAndCarryTheRequestId() {
        Segment first = new Segment(0, 0, 100, 0, new byte[] {1});
        Segment overlapping = new Segment(1, 50, 100, 0, new byte[] {1});
        fails(ErrorCode.BAD_FRAME, "VolumeInfo.segments[1].fileOffset: overlaps",
                () -> new VolumeInfo(1, "", 3, 1, 1000, 0, List.of(first, overlapping)));
        fails(ErrorCode.BAD_FRAME, "past datSize", () -> new VolumeInfo(1, "", 3, 1, 99, 0, List.of(first)));
        byte[] frame = Frames.frame(MessageType.VOLUME_LIST, 33, b -> b.packArrayHeader(1).packArrayHeader(1)
                .packArrayHeader(9).packLong(1).packString("").packLong(3).packLong(1).packLong(100).packLong(0)
                .packArrayHeader(1).packArrayHeader(5).packLong(0).packLong(0).packLong(0).packLong(0)
                .packBinaryHeader(1).writePayload(new byte[1]));
        ProtocolException e = decodeFails(ErrorCode.BAD_FRAME,
                "VolumeList.volumes[0]: VolumeInfo.segments[0]: Segment.length: must be in 1..", frame);
        assertEquals(33, e.requestId());
        ErrorReply reply = e.toReply();
        assertEquals(new ErrorReply(33, ErrorCode.BAD_FRAME, e.getMessage(), false), reply);
        VolumeInfo twice = new VolumeInfo(1, "", 3, 1, 0, 0, List.of());
        fails(ErrorCode.BAD_FRAME, "listed twice", () -> new VolumeList(1, List.of(twice, twice)));
    }

    @Test
    void lookupResultInvariants() {
        fails(ErrorCode.BAD_FRAME, "LookupResult.offset: must be a multiple of 8",
                () -> new LookupResult(1, true, 1, 12, 32, 4));
        fails(ErrorCode.BAD_FRAME, "LookupResult.recordSize", () -> new LookupResult(1, true, 1, 8, 24, 4));
        fails(ErrorCode.BAD_FRAME, "must be 0 when not found", () -> new LookupResult(1, false, 1, 8, 0, 0));
        fails(ErrorCode.BAD_FRAME, "SyncRequest.epoch", () -> new SyncRequest(1, 1, 0, 16));
    }

    @Test
    void errorReplyOfCutsLongMessagesWithoutSplittingCharacters() {
        ErrorReply reply = ErrorReply.of(1, ErrorCode.OVERLOADED, "😀".repeat(1000));
        assertTrue(FieldCheck.utf8Length(reply.message()) <= ProtocolLimits.MAX_ERROR_MESSAGE_BYTES);
        assertTrue(reply.message().endsWith("😀..."));
        assertTrue(reply.retriable());
        assertEquals(reply, codec.decode(codec.encode(reply)));
    }

    @Test
    void frameSizeBoundsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> new ControlCodec(ControlCodec.MIN_MAX_FRAME_BYTES - 1));
        assertThrows(IllegalArgumentException.class, () -> new ControlCodec(ControlCodec.MAX_MAX_FRAME_BYTES + 1));
        assertEquals(4 * 1024 * 1024, new ControlCodec().maxFrameBytes());
    }
}
