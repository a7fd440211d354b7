package org.seaweedfs.rdma.volume;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The files of one volume: {@code <vid>.dat} or {@code <collection>_<vid>.dat}, and its {@code .idx} ({@code idx} is
 * null when there is none): beside the {@code .dat}, or in the volume server's separate index directory
 * ({@code weed volume -dir.idx}).
 */
public record VolumeFiles(long volumeId, String collection, Path dat, Path idx) {

    public VolumeFiles {
        collection = collection == null ? "" : collection;
    }

    public boolean hasIndex() {
        return idx != null;
    }

    /**
     * Names a {@code .dat} file's volume as SeaweedFS does: the collection is everything before the last
     * '_', the volume id the decimal after it.
     *
     * @throws IllegalArgumentException naming the file and what is wrong with its name
     */
    public static VolumeFiles of(Path dat) {
        return of(dat, null);
    }

    /**
     * Like {@link #of(Path)}, the {@code .idx} found as SeaweedFS's volume server finds it with {@code -dir.idx}
     * (weed/storage/volume_loading.go): beside the {@code .dat} when one is there (volumes made before the option was
     * set), else in {@code idxDir} under the same base name; {@code idxDir} null: beside only.
     */
    public static VolumeFiles of(Path dat, Path idxDir) {
        String file = dat.getFileName().toString();
        if (!file.endsWith(".dat")) {
            throw new IllegalArgumentException("'" + file
                    + "' is not a volume data file (expected <vid>.dat or <collection>_<vid>.dat)");
        }
        String base = file.substring(0, file.length() - ".dat".length());
        int underscore = base.lastIndexOf('_');
        String collection = underscore > 0 ? base.substring(0, underscore) : "";
        String vid = underscore > 0 ? base.substring(underscore + 1) : base;
        long volumeId;
        try {
            volumeId = FileId.parseVolumeId(vid);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + file + "': " + e.getMessage()
                    + " (expected <vid>.dat or <collection>_<vid>.dat)", e);
        }
        Path idx = dat.resolveSibling(base + ".idx");
        if (!Files.isRegularFile(idx) && idxDir != null) {
            idx = idxDir.resolve(base + ".idx");
        }
        return new VolumeFiles(volumeId, collection, dat, Files.isRegularFile(idx) ? idx : null);
    }

    /** "collection_vid" or "vid", as in the file names. */
    public String name() {
        return collection.isEmpty() ? Long.toString(volumeId) : collection + "_" + volumeId;
    }
}
