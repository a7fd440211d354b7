package org.seaweedfs.rdma.volume;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The files of one volume: {@code <vid>.dat} or {@code <collection>_<vid>.dat}, and the {@code .idx} beside it
 * ({@code idx} is null when there is none).
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
        return new VolumeFiles(volumeId, collection, dat, Files.isRegularFile(idx) ? idx : null);
    }

    /** "collection_vid" or "vid", as in the file names. */
    public String name() {
        return collection.isEmpty() ? Long.toString(volumeId) : collection + "_" + volumeId;
    }
}
