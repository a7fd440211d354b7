package org.seaweedfs.rdma.ucx;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.openucx.jucx.ucp.UcpContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which UCX this process runs, told once at start-up: the UCX library version (JUCX has no call for it, so UCX's own
 * {@code ucx_info -v} says it, from the same library search path), the libucp file the JVM loaded, and the JUCX
 * version. The agent sends the version in its {@code HelloOk}; a sidecar warns when its agent's differs.
 */
public final class UcxLibrary {

    private static final Logger log = LoggerFactory.getLogger(UcxLibrary.class);
    private static final Pattern VERSION_LINE = Pattern.compile("(?m)^#\\s*Version\\s+(\\S+)\\s*$");
    private static final long UCX_INFO_TIMEOUT_SECONDS = 10;
    private static final Object LOCK = new Object();
    private static volatile String version;

    private UcxLibrary() {
    }

    /**
     * The UCX library version (e.g. {@code 1.13.1}); empty when it cannot be told (no {@code ucx_info}) or before the
     * first UCX worker of this process started.
     */
    public static String version() {
        String v = version;
        return v == null ? "" : v;
    }

    /**
     * Finds the version (blocking: runs {@code ucx_info -v}) and logs the one start-up line, the first time only.
     * Called by the owner thread of the first worker, after its context loaded libucp.
     */
    static void identify() {
        synchronized (LOCK) {
            if (version != null) {
                return;
            }
            String found;
            String why = "";
            try {
                found = parseVersion(ucxInfoVersion());
                if (found.isEmpty()) {
                    why = " (ucx_info -v printed no version)";
                }
            } catch (IOException e) {
                found = "";
                why = " (" + e.getMessage() + ")";
            }
            version = found;
            log.info("UCX library " + (found.isEmpty() ? "version unknown" + why : found) + ", loaded from "
                    + loadedLibrary() + "; JUCX " + jucxVersion());
        }
    }

    /** The version in {@code ucx_info -v} output ("# Version 1.13.1"), or empty. */
    static String parseVersion(String ucxInfoOutput) {
        Matcher m = VERSION_LINE.matcher(ucxInfoOutput);
        return m.find() ? m.group(1) : "";
    }

    /** The JUCX artifact's version from its Maven properties, or "unknown". */
    static String jucxVersion() {
        try (InputStream in = UcpContext.class.getResourceAsStream("/META-INF/maven/org.openucx/jucx/pom.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown").trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** The libucp file mapped into this process (from /proc/self/maps), or "an unknown file". */
    static String loadedLibrary() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/maps"), StandardCharsets.UTF_8)) {
                int slash = line.indexOf('/');
                if (slash >= 0 && line.substring(slash).matches(".*/libucp\\.so[.0-9]*")) {
                    return line.substring(slash);
                }
            }
        } catch (IOException | RuntimeException e) {
            log.debug("Cannot read /proc/self/maps: " + e.getMessage());
        }
        return "an unknown file";
    }

    private static String ucxInfoVersion() throws IOException {
        Process process;
        try {
            process = new ProcessBuilder("ucx_info", "-v").redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException("ucx_info is not installed: apt-get install ucx-utils", e);
        }
        String output;
        try (InputStream in = process.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try {
            if (!process.waitFor(UCX_INFO_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException("ucx_info -v did not finish");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IOException("interrupted waiting for ucx_info -v", e);
        }
        return output;
    }
}
