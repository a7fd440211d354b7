package org.seaweedfs.rdma.protocol;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Valid messages of every type with random fields (seeded), including the u64/u32 extremes. */
final class RandomMessages {
    private final Random random;

    RandomMessages(long seed) {
        this.random = new Random(seed);
    }

    ControlMessage next(MessageType type) {
        long id = requestId();
        return switch (type) {
            case HELLO ->
                    new Hello(id, 1 + random.nextInt(255), text(1, 256), random.nextBoolean() ? null : text(0, 1024));
            case HELLO_OK -> {
                java.util.Map<String, Long> settings = new java.util.LinkedHashMap<>();
                int n = random.nextInt(ProtocolLimits.MAX_UCX_SETTINGS + 1);
                for (int i = 0; i < n; i++) {
                    settings.put("S" + i + "_" + Long.toString(random.nextLong() >>> 1, 36).toUpperCase(),
                            nonNegative());
                }
                yield new HelloOk(id, 1 + random.nextInt(255), text(1, 256), nonNegative(), text(0, 64), settings);
            }
            case ERROR -> new ErrorReply(random.nextBoolean() ? 0 : id, pick(ErrorCode.values()), text(0, 1024),
                    random.nextBoolean());
            case PING -> new Ping(id, random.nextLong());
            case PONG -> new Pong(id, random.nextLong(), nonNegative());
            case VOLUME_LIST_REQUEST -> new VolumeListRequest(id);
            case VOLUME_LIST -> {
                List<VolumeInfo> volumes = new ArrayList<>();
                int n = random.nextInt(6);
                for (int i = 0; i < n; i++) {
                    volumes.add(volume(i * 7L + random.nextInt(7)));
                }
                yield new VolumeList(id, volumes);
            }
            case LOOKUP -> new Lookup(id, u32(), random.nextLong(), random.nextInt());
            case LOOKUP_RESULT -> {
                if (random.nextBoolean()) {
                    yield LookupResult.notFound(id, random.nextLong());
                }
                long size = u32();
                long record = (size + 20 + 8) & ~7L;
                yield new LookupResult(id, true, random.nextLong(), 8 * (1 + (nonNegative() >>> 4)), record, size);
            }
            case SYNC_REQUEST -> {
                long from = random.nextBoolean() ? 0 : nonNegative();
                yield new SyncRequest(id, u32(), from == 0 ? random.nextLong() : random.nextLong() | 1, from);
            }
            case SYNC_ENTRIES -> {
                int n = random.nextInt(50);
                long from = nonNegative() >>> 8;
                yield new SyncEntries(random.nextBoolean() ? 0 : id, u32(), random.nextLong(), from, from + 16L * n,
                        random.nextBoolean(), bytes(n * SyncEntryReader.ENTRY_BYTES));
            }
            case VOLUME_CHANGED -> new VolumeChanged(u32(), random.nextLong(), pick(VolumeChanged.Reason.values()));
            case READ_THROUGH -> new ReadThrough(id, u32(), random.nextLong(), random.nextInt(), nonNegative(),
                    1 + random.nextInt(1 << 20));
            case READ_THROUGH_DATA -> new ReadThroughData(id, random.nextLong(), nonNegative(),
                    bytes(random.nextInt(5000)));
            case LOOKUP_BATCH -> new LookupBatch(id, bytes((1 + random.nextInt(100)) * LookupBatch.ID_BYTES));
            case LOOKUP_BATCH_RESULT -> {
                int n = 1 + random.nextInt(100);
                byte[] results = new byte[n * LookupBatchResult.RESULT_BYTES];
                for (int i = 0; i < n; i++) {
                    int status = random.nextInt(3);
                    LookupBatchResult.put(results, i, status, random.nextLong(),
                            status == LookupBatchResult.FOUND ? 8 * (1 + (nonNegative() >>> 4)) : 0,
                            status == LookupBatchResult.FOUND ? random.nextInt() : 0);
                }
                yield new LookupBatchResult(id, results);
            }
            case INDEX_REQUEST -> new IndexRequest(id, u32());
            case INDEX_HANDLE -> new IndexHandle(id, u32(), random.nextLong(), 1 + random.nextInt(255),
                    random.nextLong(), 1 + nonNegative() / 2, bytes(1 + random.nextInt(300)));
        };
    }

    ControlMessage any() {
        return next(pick(MessageType.values()));
    }

    private VolumeInfo volume(long volumeId) {
        List<Segment> segments = new ArrayList<>();
        long offset = 0;
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
            offset += random.nextInt(100);
            long length = 1 + random.nextInt(Integer.MAX_VALUE);
            segments.add(new Segment(i, offset, length, random.nextLong(), bytes(1 + random.nextInt(300))));
            offset += length;
        }
        if (random.nextInt(3) == 0) {
            return new VolumeInfo(volumeId, text(0, 40), 1 + random.nextInt(3), random.nextLong(),
                    random.nextInt(1000), nonNegative(), List.of(), ecInfo());
        }
        ServedFile file = random.nextBoolean() ? null : new ServedFile(text(1, 80), "/" + text(0, 200),
                random.nextLong(), random.nextLong());
        return new VolumeInfo(volumeId, text(0, 40), 1 + random.nextInt(3), random.nextLong(),
                offset + random.nextInt(1000), nonNegative(), segments, null, file);
    }

    /** An EC layout with some of its shards, each with a few segments inside the shard size. */
    private EcInfo ecInfo() {
        int data = 1 + random.nextInt(20);
        int parity = 1 + random.nextInt(EcInfo.MAX_SHARDS - data);
        long shardSize = 1 + random.nextInt(Integer.MAX_VALUE);
        List<EcShard> shards = new ArrayList<>();
        for (int id = 0; id < data + parity; id++) {
            if (random.nextBoolean()) {
                List<Segment> segments = new ArrayList<>();
                long at = 0;
                int n = random.nextInt(3);
                for (int i = 0; i < n && at < shardSize; i++) {
                    long length = 1 + random.nextInt((int) Math.min(Integer.MAX_VALUE, shardSize - at));
                    segments.add(new Segment(i, at, length, random.nextLong(), bytes(1 + random.nextInt(300))));
                    at += length;
                }
                shards.add(new EcShard(id, segments));
            }
        }
        long small = 1 + random.nextInt(1 << 20);
        return new EcInfo(data, parity, nonNegative(), shardSize, small + random.nextInt(1 << 30), small, shards);
    }

    private long requestId() {
        long id = random.nextInt(4) == 0 ? -1L - random.nextInt(3) : random.nextLong();
        return id == 0 ? 1 : id;
    }

    private long u32() {
        return switch (random.nextInt(4)) {
            case 0 -> 0;
            case 1 -> ProtocolLimits.MAX_U32;
            default -> random.nextLong() & ProtocolLimits.MAX_U32;
        };
    }

    private long nonNegative() {
        return random.nextInt(4) == 0 ? Long.MAX_VALUE : (random.nextLong() >>> 1) >>> random.nextInt(63);
    }

    /** Mixed 1-, 2-, 3- and 4-byte UTF-8, cut to at most maxBytes. */
    private String text(int minChars, int maxBytes) {
        String[] pieces = {"a", "Z", "é", "ß", "中", "😀", "-", "0"};
        StringBuilder s = new StringBuilder();
        int target = minChars + random.nextInt(maxBytes / 4 + 1);
        while (s.length() < target) {
            String piece = pieces[random.nextInt(pieces.length)];
            if (FieldCheck.utf8Length(s + piece) > maxBytes) {
                break;
            }
            s.append(piece);
        }
        return s.length() < minChars ? "x" : s.toString();
    }

    private byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private <T> T pick(T[] values) {
        return values[random.nextInt(values.length)];
    }
}
