package org.seaweedfs.rdma;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** What the build stamped into the artifact ({@code org/seaweedfs/rdma/build.properties}, filtered by Maven). */
public final class BuildInfo {

    private static final String RESOURCE = "build.properties";
    private static final String VERSION = load();

    private BuildInfo() {
    }

    /**
     * The project version, e.g. {@code 0.1.0-SNAPSHOT}; "unknown" when the classes run without the build's resources.
     */
    public static String version() {
        return VERSION;
    }

    private static String load() {
        try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", "").trim();
            return v.isEmpty() || v.startsWith("${") ? "unknown" : v;
        } catch (IOException e) {
            return "unknown";
        }
    }
}
