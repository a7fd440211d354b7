package org.seaweedfs.rdma.protocol;

/** The bounds of the protocol, checked on encode and on decode. String bounds are in UTF-8 bytes. */
public final class ProtocolLimits {
    /** Hello.clientId, HelloOk.agentId. */
    public static final int MAX_ID_BYTES = 256;
    /** HelloOk.ucxVersion. */
    public static final int MAX_UCX_VERSION_BYTES = 64;
    /** HelloOk.ucxSettings. */
    public static final int MAX_UCX_SETTINGS = 32;
    /** Hello.token. */
    public static final int MAX_TOKEN_BYTES = 1024;
    /** ErrorReply.message. */
    public static final int MAX_ERROR_MESSAGE_BYTES = 1024;
    /** VolumeInfo.collection. */
    public static final int MAX_COLLECTION_BYTES = 256;
    /** VolumeList.volumes. */
    public static final int MAX_VOLUMES = 65_536;
    /** VolumeInfo.segments (a 2 GiB mapping per segment covers 8 TiB). */
    public static final int MAX_SEGMENTS = 4096;
    /** Segment.remoteKey (a packed UCX remote key; a few hundred bytes in practice). */
    public static final int MAX_REMOTE_KEY_BYTES = 4096;
    /** ServedFile.host. */
    public static final int MAX_HOST_BYTES = 256;
    /** ServedFile.path (Linux's PATH_MAX). */
    public static final int MAX_PATH_BYTES = 4096;
    /** Largest u32 value. */
    /**
     * Needle ids in one {@link LookupBatch} (the frame size may allow fewer: {@link
     * ControlCodec#maxLookupsPerFrame()}).
     */
    public static final int MAX_LOOKUP_BATCH = 4096;
    public static final long MAX_U32 = 0xFFFF_FFFFL;

    private ProtocolLimits() {
    }
}
