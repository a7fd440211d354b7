package org.seaweedfs.rdma.volume.ec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Where one EC volume's files are on a volume server with several data directories (disks) and maybe a separate
 * index directory ({@code weed volume -dir.idx}): the {@code .ecx} chosen (its {@code .ecj} beside it), the
 * {@code .vif} chosen, and the directories searched, in order, for each shard. SeaweedFS spreads the shards of one
 * volume over the disks of a server, each disk with its own copy of the small files, and with {@code -dir.idx} keeps
 * {@code .ecx}/{@code .ecj} in the index directory and the {@code .vif} beside the shards
 * (weed/storage/erasure_coding/ec_volume.go {@code NewEcVolume}, disk_location_ec.go).
 *
 * @param index     names the chosen {@code .ecx} and {@code .ecj} (its directory is theirs)
 * @param vif       the chosen {@code .vif}; null when none exists (SeaweedFS's defaults then apply)
 * @param shardDirs where shards are looked for, in order: the first directory holding a shard wins
 */
public record EcFileSet(EcFiles index, Path vif, List<Path> shardDirs) {

    public EcFileSet {
        shardDirs = List.copyOf(shardDirs);
    }

    /**
     * The volume's files among {@code dirs} (data directories first, then the index directory), chosen as SeaweedFS
     * chooses on one disk: a non-empty {@code .ecx} first (an empty one is a legitimate index of a volume with no
     * live needle, but also what an interrupted copy leaves), in directory order; the {@code .vif} beside that
     * {@code .ecx}, else the first directory holding one. Null when no directory holds an {@code .ecx}.
     */
    public static EcFileSet find(String collection, long volumeId, List<Path> dirs) {
        Path ecxDir = null;
        for (Path dir : dirs) {
            long size = sizeOf(new EcFiles(dir, collection, volumeId).ecx());
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
        Path vif = Files.isRegularFile(index.vif()) ? index.vif() : null;
        for (int i = 0; i < dirs.size() && vif == null; i++) {
            Path candidate = new EcFiles(dirs.get(i), collection, volumeId).vif();
            vif = Files.isRegularFile(candidate) ? candidate : null;
        }
        return new EcFileSet(index, vif, dirs);
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
        return index.ecx();
    }

    public Path ecj() {
        return index.ecj();
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
}
