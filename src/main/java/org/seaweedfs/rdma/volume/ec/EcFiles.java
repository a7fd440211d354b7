package org.seaweedfs.rdma.volume.ec;

import org.seaweedfs.rdma.volume.FileId;

import java.nio.file.Path;

/**
 * The file names of one EC volume in one directory: {@code <base>.ec00 .. .ecNN}, {@code .ecx}, {@code .ecj},
 * {@code .vif}, {@code .ecsum}, where base is {@code <vid>} or {@code <collection>_<vid>} as for {@code .dat} files.
 * A vacuumed EC volume's generation N (N > 0) names its files with a {@code .v<N>} suffix ({@code <base>.ecx.v2},
 * {@code .vif.v2}, {@code .ecsum.v2}, shards {@code <base>.ec03.v2}); generation 0 has none
 * (weed/storage/erasure_coding/ec_bitrot.go {@code BitrotSidecarPath}, "mirroring the .vif/.ecx versioned
 * convention"; seaweed-volume/src/storage/erasure_coding/ec_volume.rs, the scrub's shard path of the active
 * generation). Go's {@code EcShardFileName} (ec_shard.go) builds only the unsuffixed name: a generation's shards
 * may also replace the older ones in place under it (see {@link EcFileSet#namedShards()}).
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

    /** The generation's index: {@code <base>.ecx}, or {@code <base>.ecx.v<N>}. */
    public Path ecx(int generation) {
        return dir.resolve(baseName() + ".ecx" + suffix(generation));
    }

    /** The generation's deletion journal name: {@code <base>.ecj}, or {@code <base>.ecj.v<N>}. */
    public Path ecj(int generation) {
        return dir.resolve(baseName() + ".ecj" + suffix(generation));
    }

    public Path vif(int generation) {
        return dir.resolve(baseName() + ".vif" + suffix(generation));
    }

    /** The generation's bitrot checksums: {@code <base>.ecsum}, or {@code <base>.ecsum.v<N>}. */
    public Path ecsum(int generation) {
        return dir.resolve(baseName() + ".ecsum" + suffix(generation));
    }

    /** "" for generation 0, else ".v<N>". */
    public static String suffix(int generation) {
        if (generation < 0) {
            throw new IllegalArgumentException("generation " + generation + " is negative");
        }
        return generation == 0 ? "" : ".v" + generation;
    }

    /**
     * The generation an index file's name gives: 0 for {@code <base>.ecx}, N for {@code <base>.ecx.v<N>} (N a
     * decimal 1..2^31-1 without sign or leading zeros); -1 for any other name.
     */
    public static int ecxGeneration(String fileName) {
        if (fileName.endsWith(".ecx")) {
            return 0;
        }
        int at = fileName.lastIndexOf(".ecx.v");
        if (at < 0) {
            return -1;
        }
        String digits = fileName.substring(at + ".ecx.v".length());
        if (digits.isEmpty() || digits.length() > 10 || digits.charAt(0) == '0'
                || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        long generation = Long.parseLong(digits);
        return generation > Integer.MAX_VALUE ? -1 : (int) generation;
    }

    public Path shard(int shardId) {
        return dir.resolve(baseName() + shardExtension(shardId));
    }

    /** The generation's name for the shard: {@code <base>.ecNN}, or {@code <base>.ecNN.v<N>}. */
    public Path shard(int shardId, int generation) {
        return dir.resolve(baseName() + shardExtension(shardId) + suffix(generation));
    }

    /** ".ec00" .. ".ec31". */
    public static String shardExtension(int shardId) {
        if (shardId < 0 || shardId >= EcLayout.MAX_SHARDS) {
            throw new IllegalArgumentException("shard id " + shardId + " is outside 0.." + (EcLayout.MAX_SHARDS - 1));
        }
        return String.format(".ec%02d", shardId);
    }

    /** The volume a {@code <base>.ecx} or {@code <base>.ecx.v<N>} file belongs to, or null for other names. */
    public static EcFiles ofIndex(Path ecx) {
        String file = ecx.getFileName().toString();
        int generation = ecxGeneration(file);
        if (generation < 0) {
            return null;
        }
        return ofBase(ecx.getParent(), file.substring(0, file.length() - 4 - suffix(generation).length()));
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
