package org.seaweedfs.rdma.cli;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * A class-data-sharing archive (AppCDS) for the JVM {@code serve} relaunches: the first child records the classes
 * it loaded when it exits, later children map them instead of loading ~5,000 classes from the jar again. Measured
 * in the scale benchmark's set-up: a sidecar ready in 2.0-2.2 s instead of 2.8 s.
 * <p>Each archive is keyed by the JVM and the class path (each entry's size and modification time), so a rebuilt
 * jar or another JDK never maps a stale one. A child writes to its own temporary file and the parent, which waits
 * for it, renames the file into place: another JVM never maps a half-written archive. Any failure (no writable
 * temporary directory, no base archive in the JDK) costs only the speed-up; the JVM's own CDS messages are off.
 */
final class ClassArchive {

    private final Path archive;
    private final Path pending;

    private ClassArchive(Path archive, Path pending) {
        this.archive = archive;
        this.pending = pending;
    }

    /** The archive for this JVM and class path under {@code dir}; null when the directory cannot be made. */
    static ClassArchive in(Path dir, String javaHome, String javaVersion, String classPath, long pid) {
        try {
            Files.createDirectories(dir);
            try {
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            } catch (UnsupportedOperationException | IOException e) {
                // Not a POSIX file system or not ours: the archive is still keyed, only less private.
            }
        } catch (IOException e) {
            return null;
        }
        StringBuilder key = new StringBuilder(javaHome).append('|').append(javaVersion);
        for (String entry : classPath.split(java.io.File.pathSeparator)) {
            Path p = Path.of(entry);
            try {
                key.append('|').append(p.toAbsolutePath()).append(':').append(Files.size(p)).append(':')
                        .append(Files.getLastModifiedTime(p).toMillis());
            } catch (IOException e) {
                key.append('|').append(entry);
            }
        }
        String name = "classes-" + Integer.toHexString(key.toString().hashCode()) + ".jsa";
        return new ClassArchive(dir.resolve(name), dir.resolve(name + "." + pid + ".tmp"));
    }

    /** The archive in the user's temporary directory. */
    static ClassArchive forThisJvm(String javaHome, String classPath) {
        Path dir =
                Path.of(System.getProperty("java.io.tmpdir"), "seaweedfs-rdma-"
                + System.getProperty("user.name", "user"));
        return in(dir, javaHome, System.getProperty("java.vm.version", ""), classPath, ProcessHandle.current().pid());
    }

    /** JVM options: map the archive when it exists, else record one at exit. */
    List<String> jvmOptions() {
        String use = Files.isRegularFile(archive) ? "-XX:SharedArchiveFile=" + archive
                : "-XX:ArchiveClassesAtExit=" + pending;
        return List.of(use, "-Xlog:cds*=off");
    }

    /** After the child exited: puts a recorded archive in place (atomically), or removes a partial one. */
    void settle() {
        if (!Files.isRegularFile(pending)) {
            return;
        }
        try {
            if (Files.size(pending) > 0) {
                try {
                    Files.move(pending, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(pending, archive, StandardCopyOption.REPLACE_EXISTING);
                }
            } else {
                Files.delete(pending);
            }
        } catch (IOException e) {
            // Left for the next start to record again.
        }
    }

    Path archive() {
        return archive;
    }
}
