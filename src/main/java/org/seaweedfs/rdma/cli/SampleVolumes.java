package org.seaweedfs.rdma.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.zip.GZIPOutputStream;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.SuperBlock;
import org.seaweedfs.rdma.volume.VolumeWriter;

/**
 * Writes real-format SeaweedFS volumes for the demo and the benchmark: the same bytes a volume server would
 * have written, so everything downstream (agent, sidecar, inspect) reads them like any other volume.
 */
public final class SampleVolumes {

    /** Volume id of the demo volume. */
    public static final long DEMO_VOLUME_ID = 7;

    private SampleVolumes() {
    }

    /** The demo volume: a few needles showing names, mimes, gzip, pairs, a large needle and a deleted one. */
    public static List<FileId> writeDemo(Path dir) throws IOException {
        Files.createDirectories(dir);
        List<FileId> ids = new ArrayList<>();
        try (VolumeWriter w = VolumeWriter.create(dir, "", DEMO_VOLUME_ID, SuperBlock.VERSION_3, IndexFormat.OFFSET4)) {
            for (DemoNeedle sample : DemoNeedle.values()) {
                ids.add(append(w, DEMO_VOLUME_ID, sample.needle()));
            }
            w.delete(DemoNeedle.DELETED.key, DemoNeedle.DELETED.cookie, System.currentTimeMillis() * 1_000_000L);
            w.force();
        }
        return ids;
    }

    /** What a client reading each demo needle (without gzip) gets back; the deleted one is absent. */
    public static Map<FileId, byte[]> demoContents() {
        Map<FileId, byte[]> contents = new HashMap<>();
        for (DemoNeedle sample : DemoNeedle.values()) {
            if (sample != DemoNeedle.DELETED) {
                contents.put(new FileId(DEMO_VOLUME_ID, sample.key, sample.cookie), sample.content());
            }
        }
        return contents;
    }

    /** The demo's needles, in the order they are written. */
    enum DemoNeedle {
        HELLO(1, 0x1234abcd, "hello.txt", "text/plain"),
        ABOUT(2, 0x0badcafe, "about.json", "application/json"),
        RANDOM(3, 0x00c0ffee, "random-3MiB.bin", ""),
        DELETED(4, 0x5eed5eed, "deleted.txt", "text/plain");

        final long key;
        final int cookie;
        final String name;
        final String mime;

        DemoNeedle(long key, int cookie, String name, String mime) {
            this.key = key;
            this.cookie = cookie;
            this.name = name;
            this.mime = mime;
        }

        byte[] content() {
            return switch (this) {
                case HELLO -> "Hello from a SeaweedFS volume, read over UCX.\n".getBytes(StandardCharsets.UTF_8);
                case ABOUT -> "{\"project\":\"seaweedfs-rdma-sidecar\",\"transport\":\"ucx\"}\n"
                        .getBytes(StandardCharsets.UTF_8);
                case RANDOM -> randomBytes(new SplittableRandom(7), 3 << 20);
                case DELETED -> "this needle was deleted\n".getBytes(StandardCharsets.UTF_8);
            };
        }

        NewNeedle needle() throws IOException {
            boolean gzip = this == ABOUT;
            NewNeedle.Builder b = NewNeedle.builder(key, cookie, gzip ? gzip(content()) : content())
                    .name(name).mime(mime).lastModified(System.currentTimeMillis() / 1000).compressed(gzip);
            if (gzip) {
                b.pairs("{\"X-Demo\":\"compressed needle\"}");
            }
            return b.build();
        }
    }

    /**
     * A benchmark volume of {@code count} needles of {@code size} random bytes (seeded), keys 1..count. When
     * {@code plainDir} is given, each needle's data is also written there as a plain file named by its file id
     * (the peer web server serves the same bytes), and {@code paths.txt} lists one URL path per needle.
     */
    public static List<FileId> writeBench(Path dir, long volumeId, int count, int size, long seed, Path plainDir)
            throws IOException {
        Files.createDirectories(dir);
        if (plainDir != null) {
            Files.createDirectories(plainDir);
        }
        SplittableRandom random = new SplittableRandom(seed);
        List<FileId> ids = new ArrayList<>(count);
        try (VolumeWriter w = VolumeWriter.create(dir, "", volumeId, SuperBlock.VERSION_3, IndexFormat.OFFSET4)) {
            for (int i = 1; i <= count; i++) {
                byte[] data = randomBytes(random, size);
                FileId id = append(w, volumeId, NewNeedle.builder(i, random.nextInt(), data).build());
                ids.add(id);
                if (plainDir != null) {
                    Files.write(plainDir.resolve(id.toString()), data);
                }
            }
            w.force();
        }
        return ids;
    }

    /**
     * Writes volume {@code volumeId} with needles 1..count whose cookie and bytes derive from (volume, key) alone
     * ({@link #derivedCookie}, {@link #derivedBytes}), so a load generator can pick any needle and check its answer
     * without a list of ids or a copy of the data (the scale benchmark: millions of needles).
     */
    public static void writeDerived(Path dir, long volumeId, int count, int size) throws IOException {
        Files.createDirectories(dir);
        try (VolumeWriter w = VolumeWriter.create(dir, "", volumeId, SuperBlock.VERSION_3, IndexFormat.OFFSET4)) {
            for (int key = 1; key <= count; key++) {
                w.append(NewNeedle.builder(key, derivedCookie(volumeId, key),
                        derivedBytes(volumeId, key, size)).build());
            }
            w.force();
        }
    }

    public static int derivedCookie(long volumeId, long key) {
        return derived(volumeId, key).nextInt();
    }

    public static byte[] derivedBytes(long volumeId, long key, int size) {
        SplittableRandom random = derived(volumeId, key);
        random.nextInt(); // the cookie
        return randomBytes(random, size);
    }

    private static SplittableRandom derived(long volumeId, long key) {
        return new SplittableRandom(volumeId * 0x9E3779B97F4A7C15L ^ key * 0xC2B2AE3D27D4EB4FL);
    }

    private static FileId append(VolumeWriter w, long volumeId, NewNeedle needle) throws IOException {
        w.append(needle);
        return new FileId(volumeId, needle.key(), needle.cookie());
    }

    static byte[] randomBytes(SplittableRandom random, int size) {
        byte[] data = new byte[size];
        for (int i = 0; i < size; i += 8) {
            long v = random.nextLong();
            for (int j = 0; j < 8 && i + j < size; j++) {
                data[i + j] = (byte) (v >>> (8 * j));
            }
        }
        return data;
    }

    static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(data);
        }
        return out.toByteArray();
    }

    static void printPaths(List<FileId> ids, PrintStream out) {
        ids.forEach(id -> out.println("/" + id));
    }
}
