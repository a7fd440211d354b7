package org.seaweedfs.rdma.volume.ec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Where one generation of one EC volume's files are on a volume server with several data directories (disks) and
 * maybe a separate index directory ({@code weed volume -dir.idx}): the {@code .ecx} chosen (its {@code .ecj} beside
 * it), the {@code .vif} and {@code .ecsum} chosen, and the directories searched, in order, for each shard.
 * SeaweedFS spreads the shards of one volume over the disks of a server, each disk with its own copy of the small
 * files, and with {@code -dir.idx} keeps {@code .ecx}/{@code .ecj} in the index directory and the {@code .vif} beside
 * the shards (weed/storage/erasure_coding/ec_volume.go {@code NewEcVolume}, disk_location_ec.go).
 *
 * @param index      names the chosen {@code .ecx} and {@code .ecj} (its directory is theirs)
 * @param generation the EC vacuum generation these files describe (0: never vacuumed; see {@link EcFiles})
 * @param vif        the chosen {@code .vif}; null when none exists (generation 0 only: SeaweedFS's defaults apply)
 * @param ecsum      the chosen bitrot checksum file; null when none exists (the generation is unprotected)
 * @param ecj        the deletion journal: the generation's own {@code .ecj.v<N>} when one exists, else {@code .ecj}
 *                   (ids deleted before a vacuum are gone from its {@code .ecx}, so replaying them is harmless)
 * @param shardDirs  where shards are looked for, in order: the first directory holding a shard wins
 */
public record EcFileSet(EcFiles index, int generation, Path vif, Path ecsum, Path ecj, List<Path> shardDirs) {

    public EcFileSet {
        shardDirs = List.copyOf(shardDirs);
    }

    /**
     * The newest complete generation among {@code generations} (those whose {@code .ecx} some directory holds): a
     * generation N > 0 is complete once both its {@code .ecx.v<N>} and {@code .vif.v<N>} exist; generation 0 needs
     * only its {@code .ecx}. Null when none is complete.
     */
    public static EcFileSet newest(String collection, long volumeId, Collection<Integer> generations,
                                   List<Path> dirs) {
        for (int generation : new TreeSet<>(generations).descendingSet()) {
            EcFileSet files = find(collection, volumeId, generation, dirs);
            if (files != null) {
                return files;
            }
        }
        return null;
    }

    /**
     * The generation's files among {@code dirs} (data directories first, then the index directory), chosen as
     * SeaweedFS chooses on one disk: a non-empty {@code .ecx} first (an empty one is a legitimate index of a volume
     * with no live needle, but also what an interrupted copy leaves), in directory order; the {@code .vif} and
     * {@code .ecsum} beside that {@code .ecx}, else in the first directory holding one. Null when the generation is
     * not complete.
     */
    public static EcFileSet find(String collection, long volumeId, int generation, List<Path> dirs) {
        Path ecxDir = null;
        for (Path dir : dirs) {
            long size = sizeOf(new EcFiles(dir, collection, volumeId).ecx(generation));
            if (size > 0) {
                ecxDir = dir;
                break;
            }
            if (size == 0 && ecxDir == null) {
                ecxDir = dir;
            }
        }
        if (ecxDir == null) {
            return null;
        }
        EcFiles index = new EcFiles(ecxDir, collection, volumeId);
        Path vif = firstOf(index, dirs, f -> f.vif(generation));
        if (vif == null && generation > 0) {
            return null;
        }
        Path ecsum = firstOf(index, dirs, f -> f.ecsum(generation));
        Path ecj = generation > 0 && Files.isRegularFile(index.ecj(generation)) ? index.ecj(generation) : index.ecj();
        return new EcFileSet(index, generation, vif, ecsum, ecj, dirs);
    }

    /** The file {@code name} gives beside the index, else in the first of {@code dirs} holding it; null if none. */
    private static Path firstOf(EcFiles index, List<Path> dirs, Function<EcFiles, Path> name) {
        Path preferred = name.apply(index);
        if (Files.isRegularFile(preferred)) {
            return preferred;
        }
        for (Path dir : dirs) {
            Path candidate = name.apply(new EcFiles(dir, index.collection(), index.volumeId()));
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /** The size of a regular file, -1 when absent or not a regular file. */
    private static long sizeOf(Path file) {
        try {
            return Files.isRegularFile(file) ? Files.size(file) : -1;
        } catch (IOException e) { // gone meanwhile
            return -1;
        }
    }

    public String collection() {
        return index.collection();
    }

    public long volumeId() {
        return index.volumeId();
    }

    public String baseName() {
        return index.baseName();
    }

    public Path ecx() {
        return index.ecx(generation);
    }

    /** The shard's file in the first directory holding one, or null when none does. */
    public Path shard(int shardId) {
        for (Path dir : shardDirs) {
            Path shard = new EcFiles(dir, index.collection(), index.volumeId()).shard(shardId);
            if (Files.isRegularFile(shard)) {
                return shard;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return baseName() + (generation == 0 ? "" : " generation " + generation) + " (" + ecx() + ")";
    }
}
