package org.seaweedfs.rdma.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClassArchiveTest {

    @TempDir
    Path tmp;

    @Test
    void theFirstChildRecordsToItsOwnFileAndTheParentPutsItInPlace() throws Exception {
        Path jar = Files.write(tmp.resolve("app.jar"), new byte[] {1, 2, 3});
        ClassArchive first = ClassArchive.in(tmp.resolve("cds"), "/jdk", "17.0.15", jar.toString(), 100);
        String record = first.jvmOptions().get(0);
        assertTrue(record.startsWith("-XX:ArchiveClassesAtExit=") && record.endsWith(".100.tmp"), record);

        Files.write(Path.of(record.substring(record.indexOf('=') + 1)), new byte[] {42}); // what the child's JVM writes
        first.settle();
        assertTrue(Files.isRegularFile(first.archive()));

        ClassArchive second = ClassArchive.in(tmp.resolve("cds"), "/jdk", "17.0.15", jar.toString(), 101);
        assertEquals("-XX:SharedArchiveFile=" + first.archive(), second.jvmOptions().get(0));
        assertEquals("-Xlog:cds*=off", second.jvmOptions().get(1));
    }

    @Test
    void aRebuiltJarOrAnotherJdkGetsAnotherArchive() throws Exception {
        Path jar = Files.write(tmp.resolve("app.jar"), new byte[] {1, 2, 3});
        Path dir = tmp.resolve("cds");
        Path before = ClassArchive.in(dir, "/jdk", "17.0.15", jar.toString(), 1).archive();
        assertNotEquals(before, ClassArchive.in(dir, "/jdk", "17.0.16", jar.toString(), 1).archive());
        Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() + 1000));
        assertNotEquals(before, ClassArchive.in(dir, "/jdk", "17.0.15", jar.toString(), 1).archive());
    }

    @Test
    void anEmptyRecordIsRemovedAndAnUnusableDirectoryMeansNoArchive() throws Exception {
        Path jar = Files.write(tmp.resolve("app.jar"), new byte[] {1});
        ClassArchive a = ClassArchive.in(tmp.resolve("cds"), "/jdk", "17", jar.toString(), 7);
        String record = a.jvmOptions().get(0);
        Path pending = Path.of(record.substring(record.indexOf('=') + 1));
        Files.createFile(pending);
        a.settle();
        assertFalse(Files.exists(pending));
        assertFalse(Files.exists(a.archive()));

        Path file = Files.write(tmp.resolve("not-a-dir"), new byte[] {0});
        assertNull(ClassArchive.in(file.resolve("cds"), "/jdk", "17", jar.toString(), 7));
    }
}
