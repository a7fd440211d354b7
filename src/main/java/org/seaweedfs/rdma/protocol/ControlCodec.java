package org.seaweedfs.rdma.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.core.buffer.MessageBuffer;

/**
 * Encodes and decodes control frames: a 12-byte header (magic "SW", version, type, request id) and a msgpack
 * body. Immutable and thread-safe; no Vert.x types, so it runs on the UCX progress thread as well as anywhere
 * else. Decoding validates everything and throws only {@link ProtocolException} for bad input.
 */
public final class ControlCodec {
    /**
     * The version this codec speaks (the header's version byte and Hello.protocolVersion). Version 2 added
     * batched lookups ({@code LookupBatch} / {@code LookupBatchResult}) and {@code VolumeInfo.ec} (erasure-coded
     * volumes); version 3 added the agent's UCX version and the UCX settings peers must share to {@code HelloOk};
     * version 4 added the exposed needle index ({@code IndexRequest} / {@code IndexHandle}, {@code VolumeChanged
     * index}), read with one-sided gets; version 5 added the file a volume is served from ({@code VolumeInfo.file}),
     * which a reader on the agent's host maps itself.
     */
    public static final int PROTOCOL_VERSION = 5;
    /** The oldest version spoken: a connection frames in the highest version both peers speak. */
    public static final int MIN_PROTOCOL_VERSION = 3;
    /**
     * The header version byte of the messages frozen for all versions ({@code Hello}, {@code Error}): written as 1
     * and accepted under any version, so peers of different versions can still refuse each other readably.
     */
    public static final int FROZEN_FRAME_VERSION = 1;
    public static final int HEADER_BYTES = 12;
    /**
     * The largest frame agents and sidecars send and accept: 4 MiB holds a read-through of a typical needle, 209 712
     * sync entries and a whole lookup batch, and keeps what one peer can make the other buffer per frame small.
     */
    public static final int DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024;
    public static final int MIN_MAX_FRAME_BYTES = 4 * 1024;
    public static final int MAX_MAX_FRAME_BYTES = 256 * 1024 * 1024;
    static final byte MAGIC_0 = 'S';
    static final byte MAGIC_1 = 'W';

    /** Bytes a ReadThroughData or SyncEntries frame needs besides its payload (header, fields, bin header). */
    private static final int PAYLOAD_FRAME_OVERHEAD = 64;

    private final int maxFrameBytes;
    private final int version;

    public ControlCodec() {
        this(DEFAULT_MAX_FRAME_BYTES);
    }

    /** @param maxFrameBytes the largest frame encoded or accepted, header included */
    public ControlCodec(int maxFrameBytes) {
        this(maxFrameBytes, PROTOCOL_VERSION);
    }

    private ControlCodec(int maxFrameBytes, int version) {
        if (maxFrameBytes < MIN_MAX_FRAME_BYTES || maxFrameBytes > MAX_MAX_FRAME_BYTES) {
            throw new IllegalArgumentException("maxFrameBytes must be in " + MIN_MAX_FRAME_BYTES + ".."
                    + MAX_MAX_FRAME_BYTES + ", got " + maxFrameBytes);
        }
        if (version < MIN_PROTOCOL_VERSION || version > PROTOCOL_VERSION) {
            throw new IllegalArgumentException("protocol version must be in " + MIN_PROTOCOL_VERSION + ".."
                    + PROTOCOL_VERSION + ", got " + version);
        }
        this.maxFrameBytes = maxFrameBytes;
        this.version = version;
    }

    /**
     * The same codec framing in {@code version} (what a handshake agreed on): it writes that version's header and
     * neither writes nor accepts types or reasons of later versions.
     */
    public ControlCodec withVersion(int version) {
        return version == this.version ? this : new ControlCodec(maxFrameBytes, version);
    }

    /** The version this codec frames in. */
    public int version() {
        return version;
    }

    public int maxFrameBytes() {
        return maxFrameBytes;
    }

    /** The largest ReadThrough.length this codec accepts: ReadThroughData of that many bytes fits one frame. */
    public int maxReadThroughBytes() {
        return maxFrameBytes - PAYLOAD_FRAME_OVERHEAD;
    }

    /** How many packed entries one SyncEntries frame carries at most. */
    public int maxSyncEntriesPerFrame() {
        return (maxFrameBytes - PAYLOAD_FRAME_OVERHEAD) / SyncEntryReader.ENTRY_BYTES;
    }

    /** How many ids one {@link LookupBatch} carries at most (its reply, 21 bytes an id, must fit one frame too). */
    public int maxLookupsPerFrame() {
        return Math.min(ProtocolLimits.MAX_LOOKUP_BATCH, (maxFrameBytes - PAYLOAD_FRAME_OVERHEAD)
                / LookupBatchResult.RESULT_BYTES);
    }

    /** The frame of a message. @throws ProtocolException TOO_LARGE when it would exceed the maximum frame size */
    public byte[] encode(ControlMessage message) {
        return pack(message).toByteArray();
    }

    /**
     * Writes the frame of a message at {@code target}'s position (heap or direct) and advances it.
     *
     * @return the frame's length
     * @throws ProtocolException TOO_LARGE when the frame exceeds the maximum or the target's remaining space
     */
    public int encode(ControlMessage message, ByteBuffer target) {
        MessageBufferPacker packer = pack(message);
        long length = packer.getTotalWrittenBytes();
        if (length > target.remaining()) {
            throw new ProtocolException(ErrorCode.TOO_LARGE, message.requestId(), "frame of " + length
                    + " bytes does not fit the " + target.remaining() + " bytes left in the target buffer");
        }
        List<MessageBuffer> parts = packer.toBufferList();
        for (MessageBuffer part : parts) {
            target.put(part.array(), part.arrayOffset(), part.size());
        }
        return (int) length;
    }

    /**
     * Decodes the frame between {@code frame}'s position and limit (heap or direct); the buffer's position is
     * not moved, and the frame may be reused once this returns (nothing refers to it).
     *
     * @throws ProtocolException for any malformed, oversized or out-of-bounds frame; its request id is the
     *                           frame's when the header was readable
     */
    public ControlMessage decode(ByteBuffer callerFrame) {
        ByteBuffer frame = callerFrame.duplicate().order(ByteOrder.BIG_ENDIAN);
        int length = frame.remaining();
        if (length > maxFrameBytes) {
            throw new ProtocolException(ErrorCode.TOO_LARGE, requestIdIfPresent(frame),
                    "frame of " + length + " bytes is above the maximum of " + maxFrameBytes);
        }
        if (length < HEADER_BYTES) {
            throw new ProtocolException(ErrorCode.BAD_FRAME, "frame of " + length + " bytes is shorter than the "
                    + HEADER_BYTES + "-byte header");
        }
        int at = frame.position();
        if (frame.get(at) != MAGIC_0 || frame.get(at + 1) != MAGIC_1) {
            throw new ProtocolException(ErrorCode.BAD_FRAME, "not a control frame: bad magic");
        }
        long requestId = frame.getLong(at + 4);
        int version = Byte.toUnsignedInt(frame.get(at + 2));
        int typeId = Byte.toUnsignedInt(frame.get(at + 3));
        MessageType type = MessageType.fromWireId(typeId);
        // A connection's older peer frames in the older version (a subset), before and after the handshake.
        if ((version < MIN_PROTOCOL_VERSION || version > this.version) && !(version >= 1 && isFrozen(type))) {
            throw new ProtocolException(ErrorCode.UNSUPPORTED_VERSION, requestId,
                    "frame version " + version + ", this connection speaks " + this.version);
        }
        if (type == null || type.sinceVersion() > this.version) {
            throw new ProtocolException(ErrorCode.BAD_FRAME, requestId, "unknown message type " + typeId
                    + " in version " + this.version);
        }
        ControlMessage message;
        try {
            message = decodeBody(frame, at + HEADER_BYTES, length - HEADER_BYTES, type, requestId);
        } catch (ProtocolException e) {
            throw e.within(requestId, null);
        }
        if (message instanceof ReadThrough read && read.length() > maxReadThroughBytes()) {
            throw tooLongRead(read);
        }
        return message;
    }

    public ControlMessage decode(byte[] frame) {
        return decode(ByteBuffer.wrap(frame));
    }

    private ControlMessage decodeBody(ByteBuffer frame, int bodyStart, int bodyLength, MessageType type,
                                      long requestId) {
        MessageUnpacker unpacker;
        if (frame.hasArray()) {
            unpacker = MessagePack.newDefaultUnpacker(frame.array(), frame.arrayOffset() + bodyStart, bodyLength);
        } else {
            ByteBuffer body = frame.limit(bodyStart + bodyLength).position(bodyStart);
            unpacker = MessagePack.newDefaultUnpacker(new ByteBufferChunkInput(body));
        }
        BodyReader reader = new BodyReader(unpacker, bodyLength);
        ControlMessage message = MessageBodies.read(reader, type, requestId, version);
        reader.end(message.getClass().getSimpleName());
        return message;
    }

    private MessageBufferPacker pack(ControlMessage message) {
        if (message instanceof ReadThrough read && read.length() > maxReadThroughBytes()) {
            throw tooLongRead(read);
        }
        if (message.type().sinceVersion() > version || message instanceof VolumeChanged changed
                && changed.reason() == VolumeChanged.Reason.INDEX && version < 4) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, message.requestId(), message.type()
                    + " is not part of protocol version " + version);
        }
        MessageBufferPacker packer = MessagePack.newDefaultBufferPacker();
        BodyWriter writer = new BodyWriter(packer, maxFrameBytes);
        writer.raw(header(message));
        MessageBodies.write(writer, message, version);
        writer.ensureRoom(0);
        return packer;
    }

    private byte[] header(ControlMessage message) {
        byte[] header = new byte[HEADER_BYTES];
        header[0] = MAGIC_0;
        header[1] = MAGIC_1;
        header[2] = (byte) (isFrozen(message.type()) ? FROZEN_FRAME_VERSION : version);
        header[3] = (byte) message.type().wireId();
        SyncEntryReader.LONG.set(header, 4, message.requestId());
        return header;
    }

    private static boolean isFrozen(MessageType type) {
        return type == MessageType.HELLO || type == MessageType.ERROR;
    }

    private ProtocolException tooLongRead(ReadThrough read) {
        return new ProtocolException(ErrorCode.TOO_LARGE, read.requestId(), "ReadThrough.length: " + read.length()
                + " above the maximum of " + maxReadThroughBytes() + " bytes per frame");
    }

    private static long requestIdIfPresent(ByteBuffer frame) {
        int at = frame.position();
        boolean readable = frame.remaining() >= HEADER_BYTES && frame.get(at) == MAGIC_0 && frame.get(at + 1)
                == MAGIC_1;
        return readable ? frame.getLong(at + 4) : 0;
    }
}
