package org.seaweedfs.rdma.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.seaweedfs.rdma.volume.NeedleIndex;
import org.seaweedfs.rdma.volume.NeedleRecords;
import org.seaweedfs.rdma.volume.SortedNeedleIndex;

/**
 * The needle index alone, for bench/index.sh. Two modes, each printing one JSON line:
 * <ul>
 *   <li>{@code --dir D --volumes V --seconds S}: maps the agent's index files {@code D/1.rdx..V.rdx} (as a restart
 *   does: checksums verified) of volumes of gen-volume --derived (keys 1..n) and looks up random keys of random
 *   volumes on this one thread for S seconds (run it under {@code taskset -c 0}); every key the file covers (all
 *   but the last few entries of the .idx, which the agent replays) must be found.</li>
 *   <li>{@code --synthetic N --scratch D}: builds an index of N random 64-bit keys with 5-byte offsets and 32-bit
 *   sizes (the widest entries the format packs) and reports its bytes per needle and build time.</li>
 * </ul>
 */
public final class IndexBenchMain {

    private IndexBenchMain() {
    }

    public static void main(String[] args) throws Exception {
        String dir = null;
        String scratch = null;
        int volumes = 0;
        double seconds = 10;
        long synthetic = 0;
        for (int i = 0; i < args.length; i += 2) {
            String value = args[i + 1];
            switch (args[i]) {
                case "--dir" -> dir = value;
                case "--volumes" -> volumes = Integer.parseInt(value);
                case "--seconds" -> seconds = Double.parseDouble(value);
                case "--synthetic" -> synthetic = Long.parseLong(value);
                case "--scratch" -> scratch = value;
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (synthetic > 0) {
            synthetic(synthetic, Path.of(scratch));
        } else {
            lookups(Path.of(dir), volumes, seconds);
        }
    }

    private static void lookups(Path dir, int volumes, double seconds) throws IOException {
        long started = System.nanoTime();
        List<NeedleIndex> indexes = new ArrayList<>();
        long needles = 0;
        long fileBytes = 0;
        long keys = Long.MAX_VALUE;
        for (int v = 1; v <= volumes; v++) {
            Path file = dir.resolve(v + ".rdx");
            SortedNeedleIndex sorted = SortedNeedleIndex.open(file);
            needles += sorted.count();
            keys = Math.min(keys, sorted.count());
            fileBytes += sorted.fileBytes();
            indexes.add(NeedleIndex.of(file, sorted, NeedleIndex.DEFAULT_MIN_OVERLAY,
                    NeedleIndex.Readers.WRITER_THREAD));
        }
        double openMs = (System.nanoTime() - started) / 1e6;
        SplittableRandom random = new SplittableRandom(1);
        NeedleIndex.Hit hit = new NeedleIndex.Hit();
        long done = 0;
        long checksum = 0;
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        long begin = System.nanoTime();
        while ((done & 1023) != 0 || System.nanoTime() < deadline) {
            NeedleIndex index = indexes.get(random.nextInt(indexes.size()));
            if (!index.find(1 + random.nextLong(keys), hit)) {
                throw new AssertionError("a needle of the volume is missing from its index");
            }
            checksum += hit.offset();
            done++;
        }
        double elapsed = (System.nanoTime() - begin) / 1e9;
        System.out.printf(Locale.ROOT, "{\"kind\":\"index_lookups\",\"volumes\":%d,\"needles\":%d,\"file_bytes\":%d,"
                        + "\"file_bytes_per_needle\":%.2f,\"open_ms\":%.1f,\"lookups\":%d,\"seconds\":%.2f,"
                        + "\"lookups_per_s\":%.0f,\"checksum\":%d}%n", volumes, needles, fileBytes,
                (double) fileBytes / Math.max(1, needles), openMs, done, elapsed, done / elapsed, checksum);
        indexes.forEach(NeedleIndex::close);
    }

    private static void synthetic(long n, Path scratch) throws IOException {
        Files.createDirectories(scratch);
        SplittableRandom random = new SplittableRandom(2);
        Path file = scratch.resolve("synthetic.rdx");
        long started = System.nanoTime();
        try (NeedleRecords records = new NeedleRecords(scratch, n)) {
            for (long i = 0; i < n; i++) {
                records.add(random.nextLong(), 1 + random.nextLong((1L << 40) - 1), random.nextInt(Integer.MAX_VALUE));
            }
            try (NeedleIndex index = NeedleIndex.build(file, records, new SortedNeedleIndex.Stamp(0, 0, 0, 17),
                    NeedleIndex.DEFAULT_MIN_OVERLAY, NeedleIndex.Readers.WRITER_THREAD);
                 SortedNeedleIndex sorted = SortedNeedleIndex.open(file)) {
                double buildMs = (System.nanoTime() - started) / 1e6;
                System.out.printf(Locale.ROOT, "{\"kind\":\"index_synthetic\",\"needles\":%d,\"entry_bytes\":%d,"
                                + "\"file_bytes_per_needle\":%.2f,\"build_ms\":%.0f}%n", index.size(),
                        sorted.entryBytes(), (double) sorted.fileBytes() / Math.max(1, index.size()), buildMs);
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
