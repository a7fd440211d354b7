package org.seaweedfs.rdma.volume.ec;

import org.seaweedfs.rdma.volume.FileId;

import java.nio.file.Path;

/**
 * The file names of one EC volume in one directory: {@code <base>.ec00 .. .ecNN}, {@code .ecx}, {@code .ecj},
 * {@code .vif}, where base is {@code <vid>} or {@code <collection>_<vid>} as for {@code .dat} files.
 */
public record EcFiles(Path dir, String collection, long volumeId) {

    public EcFiles {
        collection = collection == null ? "" : collection;
    }

    /** "collection_vid" or "vid". */
    public String baseName() {
        return collection.isEmpty() ? Long.toString(volumeId) : collection + "_" + volumeId;
    }

    public Path ecx() {
        return dir.resolve(baseName() + ".ecx");
    }

    public Path ecj() {
        return dir.resolve(baseName() + ".ecj");
    }

    public Path vif() {
        return dir.resolve(baseName() + ".vif");
    }

    public Path shard(int shardId) {
        return dir.resolve(baseName() + shardExtension(shardId));
    }

    /** ".ec00" .. ".ec31". */
    public static String shardExtension(int shardId) {
        if (shardId < 0 || shardId >= EcLayout.MAX_SHARDS) {
            throw new IllegalArgumentException("shard id " + shardId + " is outside 0.." + (EcLayout.MAX_SHARDS - 1));
        }
        return String.format(".ec%02d", shardId);
    }

    /** The volume a {@code <base>.ecx} file belongs to, or null for other names. */
    public static EcFiles ofIndex(Path ecx) {
        String file = ecx.getFileName().toString();
        if (!file.endsWith(".ecx")) {
            return null;
        }
        return ofBase(ecx.getParent(), file.substring(0, file.length() - 4));
    }

    /** The volume a shard file belongs to, or null when the name is not {@code <base>.ecNN} with NN < 32. */
    public static EcFiles ofShard(Path shard) {
        String file = shard.getFileName().toString();
        return shardIdOf(shard) < 0 ? null : ofBase(shard.getParent(), file.substring(0, file.length() - 5));
    }

    /** NN of a {@code <base>.ecNN} name, or -1. */
    public static int shardIdOf(Path shard) {
        String file = shard.getFileName().toString();
        int n = file.length();
        if (n < 6 || !file.startsWith(".ec", n - 5) || !Character.isDigit(file.charAt(n - 2))
                || !Character.isDigit(file.charAt(n - 1))) {
            return -1;
        }
        int id = (file.charAt(n - 2) - '0') * 10 + (file.charAt(n - 1) - '0');
        return id < EcLayout.MAX_SHARDS ? id : -1;
    }

    private static EcFiles ofBase(Path dir, String base) {
        int underscore = base.lastIndexOf('_');
        String collection = underscore > 0 ? base.substring(0, underscore) : "";
        String vid = underscore > 0 ? base.substring(underscore + 1) : base;
        try {
            return new EcFiles(dir, collection, FileId.parseVolumeId(vid));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
