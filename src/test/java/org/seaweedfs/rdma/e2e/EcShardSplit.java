package org.seaweedfs.rdma.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.function.IntUnaryOperator;

/** EC volume 1's files spread over two agents' directories, as ec.encode and the shell's balancing leave them. */
final class EcShardSplit {

    private EcShardSplit() {
    }

    /**
     * Moves the shards of volume 1 in {@code src} ({@code shards} of them) to {@code tmp}/a when {@code inA} says so,
     * else to {@code tmp}/b; the .ecx, .ecj and .vif present go to both. Returns {a, b}.
     */
    static Path[] overTwo(Path src, int shards, Path tmp, IntPredicate inA) throws IOException {
        return over(src, shards, tmp, 2, id -> inA.test(id) ? 0 : 1);
    }

    /**
     * Moves the shards of volume 1 in {@code src} ({@code shards} of them) to the directory {@code dirOf} names of
     * {@code count}: {@code tmp}/a, {@code tmp}/b, ...; the .ecx, .ecj and .vif present go to each. Returns them.
     */
    static Path[] over(Path src, int shards, Path tmp, int count, IntUnaryOperator dirOf) throws IOException {
        Path[] dirs = new Path[count];
        for (int i = 0; i < count; i++) {
            dirs[i] = Files.createDirectories(tmp.resolve(String.valueOf((char) ('a' + i))));
            for (String shared : List.of("1.ecx", "1.ecj", "1.vif")) {
                if (Files.exists(src.resolve(shared))) {
                    Files.copy(src.resolve(shared), dirs[i].resolve(shared));
                }
            }
        }
        for (int id = 0; id < shards; id++) {
            String shard = String.format("1.ec%02d", id);
            Files.move(src.resolve(shard), dirs[dirOf.applyAsInt(id)].resolve(shard));
        }
        return dirs;
    }
}
