package org.seaweedfs.rdma.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ControlCodecRoundTripTest {
    private final ControlCodec codec = new ControlCodec();

    @ParameterizedTest
    @EnumSource(MessageType.class)
    void everyTypeRoundTripsWithRandomFields(MessageType type) {
        RandomMessages messages = new RandomMessages(42 + type.ordinal());
        for (int i = 0; i < 200; i++) {
            ControlMessage message = messages.next(type);
            byte[] frame = codec.encode(message);
            assertEquals(type.wireId(), frame[3], "type byte");
            assertEquals(message, codec.decode(frame), "iteration " + i);
        }
    }

    @Test
    void directAndOffsetBuffersDecodeAndAreNotMoved() {
        RandomMessages messages = new RandomMessages(7);
        for (int i = 0; i < 300; i++) {
            ControlMessage message = messages.any();
            byte[] frame = codec.encode(message);
            ByteBuffer direct = ByteBuffer.allocateDirect(frame.length + 10);
            direct.position(5).put(frame).limit(5 + frame.length).position(5);
            assertEquals(message, codec.decode(direct));
            assertEquals(5, direct.position());
            ByteBuffer slice = ByteBuffer.wrap(new byte[frame.length + 3], 3, frame.length).slice().put(frame).flip();
            assertEquals(message, codec.decode(slice));
        }
    }

    @Test
    void encodeIntoTargetBufferWritesTheSameFrame() {
        RandomMessages messages = new RandomMessages(8);
        ByteBuffer target = ByteBuffer.allocateDirect(1 << 20);
        for (int i = 0; i < 100; i++) {
            ControlMessage message = messages.any();
            byte[] expected = codec.encode(message);
            target.clear().position(9);
            assertEquals(expected.length, codec.encode(message, target));
            assertEquals(9 + expected.length, target.position());
            byte[] written = new byte[expected.length];
            target.flip().position(9);
            target.get(written);
            assertArrayEquals(expected, written);
        }
    }

    @Test
    void headerLayoutIsAsDocumented() {
        byte[] frame = codec.encode(new Ping(0x0102030405060708L, 5));
        assertArrayEquals(new byte[] {'S', 'W', 5, 4, 1, 2, 3, 4, 5, 6, 7, 8, (byte) 0x91, 5}, frame);
    }

    @Test
    void aVolumesFileTravelsFromVersion5AndIsLeftOutBefore() {
        Segment segment = new Segment(0, 0, 10, 4096, new byte[] {1});
        ServedFile file = new ServedFile("boot/net:[1]", "/data/7.dat", 2049, 131);
        VolumeList list = new VolumeList(1, List.of(new VolumeInfo(7, "", 3, 1, 10, 0, List.of(segment), null,
                file)));
        assertEquals(list, codec.decode(codec.encode(list)));
        ControlCodec older = codec.withVersion(4);
        VolumeList told = (VolumeList) older.decode(older.encode(list));
        assertEquals(null, told.volumes().get(0).file(), "version 4 has no VolumeInfo.file");
        assertEquals(List.of(segment), told.volumes().get(0).segments());
        assertEquals(ErrorCode.BAD_FRAME, assertThrows(ProtocolException.class,
                () -> codec.decode(older.encode(list))).code(), "a version-4 body is one field short in version 5");
    }

    @Test
    void fullRangeUnsignedValuesSurvive() {
        Lookup lookup = new Lookup(-1L, ProtocolLimits.MAX_U32, -2L, -1);
        assertEquals(lookup, codec.decode(codec.encode(lookup)));
        Segment segment = new Segment(0, 0, 10, Long.MIN_VALUE, new byte[] {1});
        VolumeList list = new VolumeList(1, List.of(new VolumeInfo(3, "", 3, -1L, 10, 0, List.of(segment))));
        assertEquals(list, codec.decode(codec.encode(list)));
    }

    @Test
    void largestPayloadsFitOneFrame() {
        ControlCodec small = new ControlCodec(ControlCodec.MIN_MAX_FRAME_BYTES);
        ReadThroughData data = new ReadThroughData(1, -1L, Long.MAX_VALUE, new byte[small.maxReadThroughBytes()]);
        assertEquals(data, small.decode(small.encode(data)));
        int n = small.maxSyncEntriesPerFrame();
        SyncEntries sync = new SyncEntries(0, ProtocolLimits.MAX_U32, -1L, Long.MAX_VALUE - 17L * n - 1,
                Long.MAX_VALUE, true, new byte[n * SyncEntryReader.ENTRY_BYTES]);
        assertEquals(sync, small.decode(small.encode(sync)));
    }
}
