package org.seaweedfs.rdma.ucx;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The library's own native helpers for UCX ({@code src/main/c/ucx_environment.c} and {@code ucx_log_filter.c}, built
 * into one shared object by the build): loaded once per process. It does not load UCX itself.
 */
final class UcxNativeLibrary {

    private static final String RESOURCE = "/native/libucxnative.so";
    /** Why the library is not loaded, or null when it is. */
    private static final String ABSENCE = load();

    private UcxNativeLibrary() {
    }

    /** Null when loaded, else why not (for a log line). */
    static String absence() {
        return ABSENCE;
    }

    private static String load() {
        try (InputStream in = UcxNativeLibrary.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return "this build has no " + RESOURCE + " (built without gcc, or with -Dsigbusguard.skip=true)";
            }
            Path file = Files.createTempFile("ucxnative", ".so");
            file.toFile().deleteOnExit();
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            System.load(file.toAbsolutePath().toString());
            return null;
        } catch (IOException | LinkageError e) {
            return "its native library could not be loaded (" + e + ")";
        }
    }
}
