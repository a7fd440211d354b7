package org.seaweedfs.rdma.http;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import org.seaweedfs.rdma.volume.FileId;

/**
 * A needle URL as the volume server parses it: {@code /<vid>,<fid>[.ext]}, {@code /<vid>/<fid>[.ext]}
 * or {@code /<vid>/<fid>/<filename>}; the fid may carry a {@code _<delta>} suffix.
 *
 * @param fid      the needle to read (delta applied)
 * @param authFid  what a read JWT's {@code fid} claim must name: the id without the delta
 * @param filename the URL's file name (third form), else ""
 * @param ext      the extension from the URL (with its dot), else ""
 */
record NeedlePath(FileId fid, FileId authFid, String filename, String ext) {

    /** @throws IllegalArgumentException saying what is malformed */
    static NeedlePath parse(String rawPath) {
        String path = rawPath.substring(1);
        String[] parts = path.indexOf('/') < 0 ? new String[] {path} : path.split("/", -1); // most have one segment
        String vid;
        String keyCookie;
        String filename = "";
        String ext = "";
        switch (parts.length) {
            case 3 -> {
                vid = parts[0];
                keyCookie = parts[1];
                filename = decode(parts[2]);
                ext = extension(filename);
            }
            case 2 -> {
                vid = parts[0];
                keyCookie = parts[1];
            }
            case 1 -> {
                int comma = parts[0].lastIndexOf(',');
                if (comma < 0) {
                    throw new IllegalArgumentException("'" + rawPath + "' names no file id (expected /<vid>,<fid>)");
                }
                vid = parts[0].substring(0, comma);
                keyCookie = parts[0].substring(comma + 1);
            }
            default -> throw new IllegalArgumentException("'" + rawPath + "' has too many path segments");
        }
        if (parts.length != 3) {
            int dot = keyCookie.lastIndexOf('.');
            if (dot > 0) {
                ext = keyCookie.substring(dot);
                keyCookie = keyCookie.substring(0, dot);
            }
        }
        long volumeId = FileId.parseRequestVolumeId(vid);
        int underscore = keyCookie.lastIndexOf('_');
        FileId fid = FileId.parsePath(volumeId, keyCookie);
        FileId authFid = underscore <= 0 ? fid : FileId.parsePath(volumeId, keyCookie.substring(0, underscore));
        return new NeedlePath(fid, authFid, filename, ext);
    }

    private static String extension(String filename) {
        int dot = filename.lastIndexOf('.');
        return dot >= 0 ? filename.substring(dot) : "";
    }

    private static String decode(String segment) {
        try {
            return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("file name '" + segment + "' is not valid percent-encoding");
        }
    }
}
