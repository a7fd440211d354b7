package org.seaweedfs.rdma.volume;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;

/** The real SeaweedFS files under src/test/resources/fixtures/seaweedfs (see its README for the known answers). */
public final class Fixtures {

    private Fixtures() {
    }

    public static Path root() {
        try {
            return Path.of(Fixtures.class.getResource("/fixtures/seaweedfs").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    public static Path volumes() {
        return root().resolve("volumes");
    }

    public static Path path(String relative) {
        return root().resolve(relative);
    }

    /** Copies a fixture directory to {@code dir} (writable), for tests that damage files. */
    public static Path copyDir(String relative, Path dir) {
        try (Stream<Path> files = Files.list(path(relative))) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path to = dir.resolve(f.getFileName().toString());
                Files.copy(f, to, StandardCopyOption.REPLACE_EXISTING);
                to.toFile().setWritable(true);
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
