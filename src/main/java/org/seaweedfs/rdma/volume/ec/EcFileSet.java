package org.seaweedfs.rdma.volume.ec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * @param namedShards whether the generation's shards carry its suffix ({@code <base>.ecNN.v<N>}, as SeaweedFS's
 *                   Rust volume server names them): then only such files are its shards. Otherwise (generation 0,
 *                   or a generation whose shards replace the older ones in place) its shards are the unsuffixed
 *                   {@code <base>.ecNN}
 */
public record EcFileSet(EcFiles index, int generation, Path vif, Path ecsum, Path ecj, List<Path> shardDirs,
                        boolean namedShards) {

    public EcFileSet {
        shardDirs = List.copyOf(shardDirs);
    }

    /**
     * The newest generation among {@code generations} (those whose {@code .ecx} some directory holds) with its
     * index and {@code .vif} ({@link #find}); null when none has. Whether its shards suffice is for the reader to
     * tell ({@link #candidates}).
     */
    public static EcFileSet newest(String collection, long volumeId, Collection<Integer> generations,
                                   List<Path> dirs) {
        List<EcFileSet> all = candidates(collection, volumeId, generations, dirs);
        return all.isEmpty() ? null : all.get(0);
    }

    /**
     * Every generation among {@code generations} that has its index and {@code .vif} (a generation N > 0 needs both
     * its {@code .ecx.v<N>} and {@code .vif.v<N>}; generation 0 only its {@code .ecx}), newest first.
     */
    public static List<EcFileSet> candidates(String collection, long volumeId, Collection<Integer> generations,
                                             List<Path> dirs) {
        List<EcFileSet> found = new ArrayList<>();
        for (int generation : new TreeSet<>(generations).descendingSet()) {
            EcFileSet files = find(collection, volumeId, generation, dirs);
            if (files != null) {
                found.add(files);
            }
        }
        return found;
    }

    /**
     * The generation's files among {@code dirs} (data directories first, then the index directory), chosen as
     * SeaweedFS chooses on one disk: a non-empty {@code .ecx} first (an empty one is a legitimate index of a volume
     * with no live needle, but also what an interrupted copy leaves), in directory order; the {@code .vif} and
     * {@code .ecsum} beside that {@code .ecx}, else in the first directory holding one. Null when the generation
     * lacks its index or (N > 0) its {@code .vif.v<N>}.
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
        return new EcFileSet(index, generation, vif, ecsum, ecj, dirs, generation > 0 && namesShards(index,
                generation, dirs));
    }

    /** Whether any directory holds a shard under the generation's own name ({@code <base>.ecNN.v<N>}). */
    private static boolean namesShards(EcFiles index, int generation, List<Path> dirs) {
        for (Path dir : dirs) {
            EcFiles files = new EcFiles(dir, index.collection(), index.volumeId());
            for (int id = 0; id < EcLayout.MAX_SHARDS; id++) {
                if (Files.isRegularFile(files.shard(id, generation))) {
                    return true;
                }
            }
        }
        return false;
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

    /** The shard's file (named as {@link #namedShards} says) in the first directory holding one; null if none does. */
    public Path shard(int shardId) {
        int suffix = namedShards ? generation : 0;
        for (Path dir : shardDirs) {
            Path shard = new EcFiles(dir, index.collection(), index.volumeId()).shard(shardId, suffix);
            if (Files.isRegularFile(shard)) {
                return shard;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return baseName() + (generation == 0 ? "" : " generation " + generation) + " (" + ecx()
                + (namedShards ? ", shards .ecNN" + EcFiles.suffix(generation) : "") + ")";
    }
}
