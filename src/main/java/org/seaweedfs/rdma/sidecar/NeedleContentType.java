package org.seaweedfs.rdma.sidecar;

import io.vertx.core.http.MimeMapping;

/** The Content-Type the volume server would send for a needle. */
public final class NeedleContentType {

    public static final String DEFAULT = "application/octet-stream";

    private NeedleContentType() {
    }

    /**
     * The stored mime unless it starts with application/octet-stream; else guessed from the file name
     * (the URL's, or else the needle's); null when neither says.
     */
    public static String of(NeedleStat stat, String filename) {
        if (!stat.mime().isEmpty() && !stat.mime().startsWith(DEFAULT)) {
            return stat.mime();
        }
        String name = filename == null || filename.isEmpty() ? stat.name() : filename;
        return name.isEmpty() ? null : MimeMapping.mimeTypeForFilename(name);
    }
}
