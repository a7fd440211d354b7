package org.seaweedfs.rdma.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.IntPredicate;

/** EC volume 1's files spread over two agents' directories, as ec.encode and the shell's balancing leave them. */
final class EcShardSplit {

    private EcShardSplit() {
    }

    /**
     * Moves the shards of volume 1 in {@code src} ({@code shards} of them) to {@code tmp}/a when {@code inA} says so,
     * else to {@code tmp}/b; the .ecx, .ecj and .vif present go to both. Returns {a, b}.
     */
    static Path[] overTwo(Path src, int shards, Path tmp, IntPredicate inA) throws IOException {
        Path a = Files.createDirectories(tmp.resolve("a"));
        Path b = Files.createDirectories(tmp.resolve("b"));
        for (String shared : List.of("1.ecx", "1.ecj", "1.vif")) {
            if (Files.exists(src.resolve(shared))) {
                Files.copy(src.resolve(shared), a.resolve(shared));
                Files.copy(src.resolve(shared), b.resolve(shared));
            }
        }
        for (int id = 0; id < shards; id++) {
            String shard = String.format("1.ec%02d", id);
            Files.move(src.resolve(shard), (inA.test(id) ? a : b).resolve(shard));
        }
        return new Path[] {a, b};
    }
}
