package org.seaweedfs.rdma.protocol;

/** The type byte of a frame. Stable: a later version may add types, never renumber them. */
public enum MessageType {
    HELLO(1, Direction.REQUEST),
    HELLO_OK(2, Direction.REPLY),
    ERROR(3, Direction.ANY),
    PING(4, Direction.REQUEST),
    PONG(5, Direction.REPLY),
    VOLUME_LIST_REQUEST(6, Direction.REQUEST),
    VOLUME_LIST(7, Direction.REPLY),
    LOOKUP(8, Direction.REQUEST),
    LOOKUP_RESULT(9, Direction.REPLY),
    SYNC_REQUEST(10, Direction.REQUEST),
    SYNC_ENTRIES(11, Direction.ANY),
    VOLUME_CHANGED(12, Direction.PUSH),
    READ_THROUGH(13, Direction.REQUEST),
    READ_THROUGH_DATA(14, Direction.REPLY),
    /** Since version 2. */
    LOOKUP_BATCH(15, Direction.REQUEST),
    /** Since version 2. */
    LOOKUP_BATCH_RESULT(16, Direction.REPLY),
    /** Since version 4. */
    INDEX_REQUEST(17, Direction.REQUEST),
    /** Since version 4. */
    INDEX_HANDLE(18, Direction.REPLY);

    /** What the request id of a message of this type may be. */
    public enum Direction {
        /** Sent by the sidecar; request id non-zero, chosen by the sender. */
        REQUEST,
        /** Sent by the agent in answer; echoes the request id (non-zero). */
        REPLY,
        /** Sent by the agent unsolicited; request id 0. */
        PUSH,
        /** A reply (non-zero id) or a push (id 0). */
        ANY
    }

    private static final MessageType[] BY_WIRE_ID = new MessageType[19];

    static {
        for (MessageType type : values()) {
            BY_WIRE_ID[type.wireId] = type;
        }
    }

    private final int wireId;
    private final Direction direction;

    MessageType(int wireId, Direction direction) {
        this.wireId = wireId;
        this.direction = direction;
    }

    public int wireId() {
        return wireId;
    }

    public Direction direction() {
        return direction;
    }

    /** The first protocol version that has this type. */
    public int sinceVersion() {
        return wireId >= INDEX_REQUEST_WIRE_ID ? 4 : wireId >= 15 ? 2 : 1;
    }

    private static final int INDEX_REQUEST_WIRE_ID = 17;

    /** The type for a frame's type byte, or null when it is not one of this version's types. */
    public static MessageType fromWireId(int wireId) {
        return wireId > 0 && wireId < BY_WIRE_ID.length ? BY_WIRE_ID[wireId] : null;
    }
}
