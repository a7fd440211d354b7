package org.seaweedfs.rdma.volume.ec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which files of an EC volume are chosen over several directories and generations. */
class EcFileSetTest {

    @TempDir
    Path tmp;

    @Test
    void generationNamesAreParsedStrictly() {
        assertEquals(0, EcFiles.ecxGeneration("c_7.ecx"));
        assertEquals(3, EcFiles.ecxGeneration("c_7.ecx.v3"));
        assertEquals(2147483647, EcFiles.ecxGeneration("7.ecx.v2147483647"));
        for (String bad : List.of("7.ecx.v", "7.ecx.v0", "7.ecx.v01", "7.ecx.v+1", "7.ecx.v2147483648", "7.ecx.vx",
                "7.ecj", "7.ecx.tmp")) {
            assertEquals(-1, EcFiles.ecxGeneration(bad), bad);
        }
        assertEquals(new EcFiles(tmp, "c", 7), EcFiles.ofIndex(tmp.resolve("c_7.ecx.v12")));
        assertEquals(tmp.resolve("c_7.ecsum.v12"), new EcFiles(tmp, "c", 7).ecsum(12));
        assertEquals(tmp.resolve("c_7.ecsum"), new EcFiles(tmp, "c", 7).ecsum(0));
    }

    @Test
    void theNewestCompleteGenerationWinsAndANonEmptyIndexIsPreferred() throws Exception {
        Path a = Files.createDirectories(tmp.resolve("a"));
        Path b = Files.createDirectories(tmp.resolve("b"));
        Path idx = Files.createDirectories(tmp.resolve("idx"));
        List<Path> dirs = List.of(a, b, idx);
        Files.write(a.resolve("7.ecx"), new byte[0]); // an empty copy: yields to the non-empty one
        Files.write(idx.resolve("7.ecx"), new byte[16]);
        Files.write(b.resolve("7.vif"), "{}".getBytes());
        EcFileSet gen0 = EcFileSet.newest("", 7, List.of(0), dirs);
        assertEquals(0, gen0.generation());
        assertEquals(idx.resolve("7.ecx"), gen0.ecx());
        assertEquals(idx.resolve("7.ecj"), gen0.ecj());
        assertEquals(b.resolve("7.vif"), gen0.vif());
        assertNull(gen0.ecsum());

        Files.write(idx.resolve("7.ecx.v2"), new byte[16]); // generation 2 lacks its .vif.v2: not complete
        assertEquals(0, EcFileSet.newest("", 7, List.of(0, 2), dirs).generation());
        Files.write(a.resolve("7.vif.v2"), "{}".getBytes());
        Files.write(b.resolve("7.ecsum.v2"), new byte[14]);
        EcFileSet gen2 = EcFileSet.newest("", 7, List.of(0, 2), dirs);
        assertEquals(2, gen2.generation());
        assertEquals(idx.resolve("7.ecx.v2"), gen2.ecx());
        assertEquals(a.resolve("7.vif.v2"), gen2.vif());
        assertEquals(b.resolve("7.ecsum.v2"), gen2.ecsum());
        assertEquals(idx.resolve("7.ecj"), gen2.ecj(), "no .ecj.v2: the unsuffixed journal");
        Files.write(idx.resolve("7.ecj.v2"), new byte[0]);
        assertEquals(idx.resolve("7.ecj.v2"), EcFileSet.newest("", 7, List.of(0, 2), dirs).ecj());

        Files.write(b.resolve("7.ec05"), new byte[1]);
        Files.write(idx.resolve("7.ec05"), new byte[1]);
        assertEquals(b.resolve("7.ec05"), gen2.shard(5), "the first directory holding a shard");
        assertNull(gen2.shard(4));
        assertFalse(gen2.namedShards());
    }

    @Test
    void aGenerationWhoseShardsCarryItsSuffixIsReadFromThoseOnly() throws Exception {
        Path a = Files.createDirectories(tmp.resolve("a"));
        Path b = Files.createDirectories(tmp.resolve("b"));
        List<Path> dirs = List.of(a, b);
        for (String name : List.of("7.ecx", "7.ec00", "7.ec01", "7.ecx.v1", "7.vif.v1")) {
            Files.write(a.resolve(name), new byte[16]);
        }
        Files.write(b.resolve("7.ec01.v1"), new byte[16]);
        assertEquals(b.resolve("7.ec01.v1"), new EcFiles(b, "", 7).shard(1, 1));
        List<EcFileSet> all = EcFileSet.candidates("", 7, List.of(0, 1), dirs);
        assertEquals(List.of(1, 0), all.stream().map(EcFileSet::generation).toList(), "newest first");
        EcFileSet gen1 = all.get(0);
        assertTrue(gen1.namedShards());
        assertEquals(b.resolve("7.ec01.v1"), gen1.shard(1));
        assertNull(gen1.shard(0), "generation 0's 7.ec00 is not generation 1's");
        assertEquals(a.resolve("7.ec00"), all.get(1).shard(0));
    }
}
