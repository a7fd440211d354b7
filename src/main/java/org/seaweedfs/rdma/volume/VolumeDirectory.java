package org.seaweedfs.rdma.volume;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** The volumes in one directory of a volume server. Files other than {@code *.dat} are ignored. */
public final class VolumeDirectory {

    /** Volumes found (sorted by collection, then id) and one message per {@code .dat} whose name is malformed. */
    public record Listing(List<VolumeFiles> volumes, List<String> problems) {
        public Listing {
            volumes = List.copyOf(volumes);
            problems = List.copyOf(problems);
        }
    }

    private VolumeDirectory() {
    }

    public static Listing scan(Path dir) throws IOException {
        return scan(dir, null);
    }

    /** The volumes in {@code dir}, each {@code .idx} beside its {@code .dat} or in {@code idxDir} (see VolumeFiles). */
    public static Listing scan(Path dir, Path idxDir) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new IOException(dir + " is not a directory");
        }
        List<VolumeFiles> volumes = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.dat")) {
            for (Path dat : files) {
                if (!Files.isRegularFile(dat)) {
                    continue;
                }
                try {
                    volumes.add(VolumeFiles.of(dat, idxDir));
                } catch (IllegalArgumentException e) {
                    problems.add(e.getMessage());
                }
            }
        }
        volumes.sort(Comparator.comparing(VolumeFiles::collection).thenComparingLong(VolumeFiles::volumeId));
        problems.sort(null);
        return new Listing(volumes, problems);
    }
}
