package org.seaweedfs.rdma.protocol;

import java.util.ArrayList;
import java.util.List;

/**
 * The body of each message type: one msgpack array of its fields in a fixed order (see docs/protocol.md).
 * The request id travels in the frame header, not here.
 */
final class MessageBodies {
    /** Smallest encodings, to reject element counts the rest of the frame cannot hold before allocating. */
    private static final int MIN_VOLUME_BYTES = 9;
    private static final int MIN_SEGMENT_BYTES = 7;
    private static final int MIN_SHARD_BYTES = 2;
    /** fixarray, a one-character fixstr, a positive fixint. */
    private static final int MIN_SETTING_BYTES = 4;
    private static final int MAX_SETTING_NAME_BYTES = 64;
    /** The protocol version from which {@code VolumeInfo} tells its file ({@link ServedFile}). */
    private static final int FILE_SINCE = 5;

    private MessageBodies() {
    }

    /** Writes the body of {@code message} as protocol {@code protocolVersion} frames it. */
    static void write(BodyWriter w, ControlMessage message, int protocolVersion) {
        switch (message.type()) {
            case HELLO -> {
                Hello m = (Hello) message;
                w.array(3);
                w.i64(m.protocolVersion());
                w.string(m.clientId());
                w.string(m.token());
            }
            case HELLO_OK -> {
                HelloOk m = (HelloOk) message;
                w.array(5);
                w.i64(m.protocolVersion());
                w.string(m.agentId());
                w.i64(m.serverTimeMs());
                w.string(m.ucxVersion());
                w.array(m.ucxSettings().size());
                m.ucxSettings().forEach((name, value) -> {
                    w.array(2);
                    w.string(name);
                    w.i64(value);
                });
            }
            case ERROR -> {
                ErrorReply m = (ErrorReply) message;
                w.array(3);
                w.i64(m.code().wireId());
                w.string(m.message());
                w.bool(m.retriable());
            }
            case PING -> {
                w.array(1);
                w.i64(((Ping) message).sentNanos());
            }
            case PONG -> {
                Pong m = (Pong) message;
                w.array(2);
                w.i64(m.sentNanos());
                w.i64(m.agentTimeMs());
            }
            case VOLUME_LIST_REQUEST -> w.array(0);
            case VOLUME_LIST -> {
                List<VolumeInfo> volumes = ((VolumeList) message).volumes();
                w.array(1);
                w.array(volumes.size());
                for (VolumeInfo volume : volumes) {
                    writeVolume(w, volume, protocolVersion);
                }
            }
            case LOOKUP -> {
                Lookup m = (Lookup) message;
                w.array(3);
                w.i64(m.volumeId());
                w.u64(m.key());
                w.i64(Integer.toUnsignedLong(m.cookie()));
            }
            case LOOKUP_RESULT -> {
                LookupResult m = (LookupResult) message;
                w.array(5);
                w.bool(m.found());
                w.u64(m.epoch());
                w.i64(m.offset());
                w.i64(m.recordSize());
                w.i64(m.size());
            }
            case SYNC_REQUEST -> {
                SyncRequest m = (SyncRequest) message;
                w.array(3);
                w.i64(m.volumeId());
                w.u64(m.epoch());
                w.i64(m.fromPosition());
            }
            case SYNC_ENTRIES -> {
                SyncEntries m = (SyncEntries) message;
                w.array(6);
                w.i64(m.volumeId());
                w.u64(m.epoch());
                w.i64(m.fromPosition());
                w.i64(m.toPosition());
                w.bool(m.more());
                w.bin(m.entries());
            }
            case VOLUME_CHANGED -> {
                VolumeChanged m = (VolumeChanged) message;
                w.array(3);
                w.i64(m.volumeId());
                w.u64(m.epoch());
                w.i64(m.reason().wireId());
            }
            case READ_THROUGH -> {
                ReadThrough m = (ReadThrough) message;
                w.array(5);
                w.i64(m.volumeId());
                w.u64(m.key());
                w.i64(Integer.toUnsignedLong(m.cookie()));
                w.i64(m.offset());
                w.i64(m.length());
            }
            case READ_THROUGH_DATA -> {
                ReadThroughData m = (ReadThroughData) message;
                w.array(3);
                w.u64(m.epoch());
                w.i64(m.offset());
                w.bin(m.bytes());
            }
            case LOOKUP_BATCH -> {
                w.array(1);
                w.bin(((LookupBatch) message).ids());
            }
            case LOOKUP_BATCH_RESULT -> {
                w.array(1);
                w.bin(((LookupBatchResult) message).results());
            }
            case INDEX_REQUEST -> {
                w.array(1);
                w.i64(((IndexRequest) message).volumeId());
            }
            case INDEX_HANDLE -> {
                IndexHandle m = (IndexHandle) message;
                w.array(6);
                w.i64(m.volumeId());
                w.u64(m.epoch());
                w.i64(m.layout());
                w.u64(m.address());
                w.i64(m.length());
                w.bin(m.remoteKey());
            }
        }
    }

    /** Reads the body of a {@code type} message as protocol {@code protocolVersion} frames it. */
    static ControlMessage read(BodyReader r, MessageType type, long requestId, int protocolVersion) {
        return switch (type) {
            case HELLO -> {
                r.begin("Hello", 3);
                yield new Hello(requestId, r.bounded("Hello.protocolVersion", 1, 255),
                        r.string("Hello.clientId", ProtocolLimits.MAX_ID_BYTES, false),
                        r.string("Hello.token", ProtocolLimits.MAX_TOKEN_BYTES, true));
            }
            case HELLO_OK -> {
                r.begin("HelloOk", 5);
                int version = r.bounded("HelloOk.protocolVersion", 1, 255);
                String agentId = r.string("HelloOk.agentId", ProtocolLimits.MAX_ID_BYTES, false);
                long time = r.nonNegative("HelloOk.serverTimeMs");
                String ucxVersion = r.string("HelloOk.ucxVersion", ProtocolLimits.MAX_UCX_VERSION_BYTES, false);
                int n = r.arrayHeader("HelloOk.ucxSettings", ProtocolLimits.MAX_UCX_SETTINGS, MIN_SETTING_BYTES);
                java.util.Map<String, Long> settings = new java.util.LinkedHashMap<>();
                for (int i = 0; i < n; i++) {
                    String field = "HelloOk.ucxSettings[" + i + "]";
                    r.begin(field, 2);
                    String name = r.string(field + ".name", MAX_SETTING_NAME_BYTES, false);
                    if (settings.put(name, r.nonNegative(field + ".value")) != null) {
                        throw FieldCheck.bad(field + ".name", "'" + name + "' appears twice");
                    }
                }
                yield new HelloOk(requestId, version, agentId, time, ucxVersion, settings);
            }
            case ERROR -> {
                r.begin("Error", 3);
                long wireId = r.i64("Error.code");
                ErrorCode code = ErrorCode.fromWireId(wireId);
                if (code == null) {
                    throw FieldCheck.bad("Error.code", "unknown code " + wireId);
                }
                yield new ErrorReply(requestId, code,
                        r.string("Error.message", ProtocolLimits.MAX_ERROR_MESSAGE_BYTES, false),
                        r.bool("Error.retriable"));
            }
            case PING -> {
                r.begin("Ping", 1);
                yield new Ping(requestId, r.i64("Ping.sentNanos"));
            }
            case PONG -> {
                r.begin("Pong", 2);
                yield new Pong(requestId, r.i64("Pong.sentNanos"), r.nonNegative("Pong.agentTimeMs"));
            }
            case VOLUME_LIST_REQUEST -> {
                r.begin("VolumeListRequest", 0);
                yield new VolumeListRequest(requestId);
            }
            case VOLUME_LIST -> {
                r.begin("VolumeList", 1);
                int n = r.arrayHeader("VolumeList.volumes", ProtocolLimits.MAX_VOLUMES, MIN_VOLUME_BYTES);
                List<VolumeInfo> volumes = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    try {
                        volumes.add(readVolume(r, protocolVersion));
                    } catch (ProtocolException e) {
                        throw e.within(requestId, "VolumeList.volumes[" + i + "]");
                    }
                }
                yield new VolumeList(requestId, volumes);
            }
            case LOOKUP -> {
                r.begin("Lookup", 3);
                yield new Lookup(requestId, r.u32("Lookup.volumeId"), r.u64("Lookup.key"),
                        r.u32Bits("Lookup.cookie"));
            }
            case LOOKUP_RESULT -> {
                r.begin("LookupResult", 5);
                yield new LookupResult(requestId, r.bool("LookupResult.found"), r.u64("LookupResult.epoch"),
                        r.nonNegative("LookupResult.offset"), r.nonNegative("LookupResult.recordSize"),
                        r.u32("LookupResult.size"));
            }
            case SYNC_REQUEST -> {
                r.begin("SyncRequest", 3);
                yield new SyncRequest(requestId, r.u32("SyncRequest.volumeId"), r.u64("SyncRequest.epoch"),
                        r.nonNegative("SyncRequest.fromPosition"));
            }
            case SYNC_ENTRIES -> {
                r.begin("SyncEntries", 6);
                yield new SyncEntries(requestId, r.u32("SyncEntries.volumeId"), r.u64("SyncEntries.epoch"),
                        r.nonNegative("SyncEntries.fromPosition"), r.nonNegative("SyncEntries.toPosition"),
                        r.bool("SyncEntries.more"), r.bin("SyncEntries.entries", Integer.MAX_VALUE));
            }
            case VOLUME_CHANGED -> {
                r.begin("VolumeChanged", 3);
                long volumeId = r.u32("VolumeChanged.volumeId");
                long epoch = r.u64("VolumeChanged.epoch");
                long wireId = r.i64("VolumeChanged.reason");
                VolumeChanged.Reason reason = VolumeChanged.Reason.fromWireId(wireId);
                if (reason == null) {
                    throw FieldCheck.bad("VolumeChanged.reason", "unknown reason " + wireId);
                }
                yield new VolumeChanged(requestId, volumeId, epoch, reason);
            }
            case READ_THROUGH -> {
                r.begin("ReadThrough", 5);
                yield new ReadThrough(requestId, r.u32("ReadThrough.volumeId"), r.u64("ReadThrough.key"),
                        r.u32Bits("ReadThrough.cookie"), r.nonNegative("ReadThrough.offset"),
                        r.bounded("ReadThrough.length", 1, Integer.MAX_VALUE));
            }
            case READ_THROUGH_DATA -> {
                r.begin("ReadThroughData", 3);
                yield new ReadThroughData(requestId, r.u64("ReadThroughData.epoch"),
                        r.nonNegative("ReadThroughData.offset"), r.bin("ReadThroughData.bytes", Integer.MAX_VALUE));
            }
            case LOOKUP_BATCH -> {
                r.begin("LookupBatch", 1);
                yield new LookupBatch(requestId, r.bin("LookupBatch.ids",
                        ProtocolLimits.MAX_LOOKUP_BATCH * LookupBatch.ID_BYTES));
            }
            case LOOKUP_BATCH_RESULT -> {
                r.begin("LookupBatchResult", 1);
                yield new LookupBatchResult(requestId, r.bin("LookupBatchResult.results",
                        ProtocolLimits.MAX_LOOKUP_BATCH * LookupBatchResult.RESULT_BYTES));
            }
            case INDEX_REQUEST -> {
                r.begin("IndexRequest", 1);
                yield new IndexRequest(requestId, r.u32("IndexRequest.volumeId"));
            }
            case INDEX_HANDLE -> {
                r.begin("IndexHandle", 6);
                yield new IndexHandle(requestId, r.u32("IndexHandle.volumeId"), r.u64("IndexHandle.epoch"),
                        r.bounded("IndexHandle.layout", 1, 255), r.u64("IndexHandle.address"),
                        r.nonNegative("IndexHandle.length"),
                        r.bin("IndexHandle.remoteKey", ProtocolLimits.MAX_REMOTE_KEY_BYTES));
            }
        };
    }

    private static void writeVolume(BodyWriter w, VolumeInfo volume, int protocolVersion) {
        boolean withFile = protocolVersion >= FILE_SINCE;
        w.array(withFile ? 9 : 8);
        w.i64(volume.volumeId());
        w.string(volume.collection());
        w.i64(volume.version());
        w.u64(volume.epoch());
        w.i64(volume.datSize());
        w.i64(volume.idxPosition());
        writeSegments(w, volume.segments());
        writeEc(w, volume.ec());
        if (withFile) {
            ServedFile file = volume.file();
            if (file == null) {
                w.nil();
            } else {
                w.array(4);
                w.string(file.host());
                w.string(file.path());
                w.i64(file.device());
                w.i64(file.inode());
            }
        }
    }

    private static void writeEc(BodyWriter w, EcInfo ec) {
        if (ec == null) {
            w.nil();
            return;
        }
        w.array(7);
        w.i64(ec.dataShards());
        w.i64(ec.parityShards());
        w.i64(ec.datFileSize());
        w.i64(ec.shardSize());
        w.i64(ec.largeBlockSize());
        w.i64(ec.smallBlockSize());
        w.array(ec.shards().size());
        for (EcShard shard : ec.shards()) {
            w.array(2);
            w.i64(shard.shardId());
            writeSegments(w, shard.segments());
        }
    }

    private static void writeSegments(BodyWriter w, List<Segment> segments) {
        w.array(segments.size());
        for (Segment segment : segments) {
            w.array(5);
            w.i64(segment.index());
            w.i64(segment.fileOffset());
            w.i64(segment.length());
            w.u64(segment.address());
            w.bin(segment.remoteKey());
        }
    }

    private static VolumeInfo readVolume(BodyReader r, int protocolVersion) {
        r.begin("VolumeInfo", protocolVersion >= FILE_SINCE ? 9 : 8);
        long volumeId = r.u32("VolumeInfo.volumeId");
        String collection = r.string("VolumeInfo.collection", ProtocolLimits.MAX_COLLECTION_BYTES, false);
        int version = r.bounded("VolumeInfo.version", 1, 3);
        long epoch = r.u64("VolumeInfo.epoch");
        long datSize = r.nonNegative("VolumeInfo.datSize");
        long idxPosition = r.nonNegative("VolumeInfo.idxPosition");
        List<Segment> segments = readSegments(r, "VolumeInfo.segments");
        EcInfo ec = r.nil() ? null : readEc(r);
        ServedFile file = null;
        if (protocolVersion >= FILE_SINCE && !r.nil()) {
            r.begin("ServedFile", 4);
            file = new ServedFile(r.string("ServedFile.host", ProtocolLimits.MAX_HOST_BYTES, false),
                    r.string("ServedFile.path", ProtocolLimits.MAX_PATH_BYTES, false), r.i64("ServedFile.device"),
                    r.i64("ServedFile.inode"));
        }
        return new VolumeInfo(volumeId, collection, version, epoch, datSize, idxPosition, segments, ec, file);
    }

    private static EcInfo readEc(BodyReader r) {
        r.begin("EcInfo", 7);
        int data = r.bounded("EcInfo.dataShards", 1, EcInfo.MAX_SHARDS - 1);
        int parity = r.bounded("EcInfo.parityShards", 1, EcInfo.MAX_SHARDS - 1);
        long datFileSize = r.nonNegative("EcInfo.datFileSize");
        long shardSize = r.nonNegative("EcInfo.shardSize");
        long large = r.nonNegative("EcInfo.largeBlockSize");
        long small = r.nonNegative("EcInfo.smallBlockSize");
        int n = r.arrayHeader("EcInfo.shards", EcInfo.MAX_SHARDS, MIN_SHARD_BYTES);
        List<EcShard> shards = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            try {
                r.begin("EcShard", 2);
                int shardId = r.bounded("EcShard.shardId", 0, EcInfo.MAX_SHARDS - 1);
                shards.add(new EcShard(shardId, readSegments(r, "EcShard.segments")));
            } catch (ProtocolException e) {
                throw e.within(0, "EcInfo.shards[" + i + "]");
            }
        }
        return new EcInfo(data, parity, datFileSize, shardSize, large, small, shards);
    }

    private static List<Segment> readSegments(BodyReader r, String field) {
        int n = r.arrayHeader(field, ProtocolLimits.MAX_SEGMENTS, MIN_SEGMENT_BYTES);
        List<Segment> segments = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            try {
                r.begin("Segment", 5);
                segments.add(new Segment(r.bounded("Segment.index", 0, ProtocolLimits.MAX_SEGMENTS - 1),
                        r.nonNegative("Segment.fileOffset"), r.nonNegative("Segment.length"),
                        r.u64("Segment.address"), r.bin("Segment.remoteKey", ProtocolLimits.MAX_REMOTE_KEY_BYTES)));
            } catch (ProtocolException e) {
                throw e.within(0, field + "[" + i + "]");
            }
        }
        return segments;
    }
}
