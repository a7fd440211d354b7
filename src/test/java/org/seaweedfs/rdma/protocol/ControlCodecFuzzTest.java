package org.seaweedfs.rdma.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Random mutations of valid frames: decode returns a message or throws ProtocolException, nothing else. */
class ControlCodecFuzzTest {
    private static final int ITERATIONS = 8_000;
    /** Bytes that mean something to msgpack: never-used, str/bin/array/map 32 headers, uint64, nil, fix limits. */
    private static final byte[] INTERESTING = {(byte) 0xc1, (byte) 0xdb, (byte) 0xc6, (byte) 0xdd, (byte) 0xdf,
            (byte) 0xcf, (byte) 0xd3, (byte) 0xc0, (byte) 0x7f, (byte) 0x80, (byte) 0xff, 0, (byte) 0x9f};

    private final ControlCodec codec = new ControlCodec(64 * 1024);

    @Test
    void mutatedFramesNeverEscapeAsAnythingButProtocolException() {
        Random random = new Random(20240611);
        RandomMessages messages = new RandomMessages(99);
        int decoded = 0;
        for (int i = 0; i < ITERATIONS; i++) {
            byte[] frame = mutate(codec.encode(small(messages)), random);
            try {
                ControlMessage message = i % 5 == 0 ? codec.decode(direct(frame)) : codec.decode(frame);
                decoded++;
                assertEquals(message, codec.decode(codec.encode(message)), "a decoded message re-encodes");
            } catch (ProtocolException expected) {
                // the only acceptable failure
            } catch (Throwable t) {
                fail("iteration " + i + " frame " + HexFormat.of().formatHex(frame) + " threw " + t, t);
            }
        }
        // Some mutations (e.g. of a payload byte) leave a valid frame: the loop exercises both outcomes.
        assertEquals(true, decoded > 0 && decoded < ITERATIONS, "decoded " + decoded);
    }

    private ControlMessage small(RandomMessages messages) {
        ControlMessage message;
        do {
            message = messages.any();
        } while (message instanceof ReadThrough r && r.length() > codec.maxReadThroughBytes());
        return message;
    }

    private static byte[] mutate(byte[] frame, Random random) {
        byte[] out = frame;
        int edits = 1 + random.nextInt(3);
        for (int e = 0; e < edits; e++) {
            int at = random.nextInt(out.length);
            switch (random.nextInt(6)) {
                case 0 -> out[at] ^= (byte) (1 << random.nextInt(8));
                case 1 -> out[at] = INTERESTING[random.nextInt(INTERESTING.length)];
                case 2 -> out = Arrays.copyOf(out, at);
                case 3 -> {
                    byte[] longer = new byte[out.length + 1 + random.nextInt(8)];
                    System.arraycopy(out, 0, longer, 0, at);
                    random.nextBytes(longer);
                    System.arraycopy(out, at, longer, longer.length - (out.length - at), out.length - at);
                    out = longer;
                }
                case 4 -> {
                    int n = Math.min(out.length - at, 1 + random.nextInt(8));
                    byte[] shorter = new byte[out.length - n];
                    System.arraycopy(out, 0, shorter, 0, at);
                    System.arraycopy(out, at + n, shorter, at, out.length - at - n);
                    out = shorter;
                }
                default -> out[at] = (byte) random.nextInt(256);
            }
            if (out.length == 0) {
                return out;
            }
            // Keep most frames past the header checks so the body decoder gets the mutations.
            if (random.nextInt(4) != 0 && out.length >= ControlCodec.HEADER_BYTES) {
                System.arraycopy(frame, 0, out, 0, 4);
            }
        }
        return out;
    }

    private static ByteBuffer direct(byte[] frame) {
        return ByteBuffer.allocateDirect(frame.length).put(frame).flip();
    }
}
