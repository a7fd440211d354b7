package org.seaweedfs.rdma.protocol;

/**
 * The file an agent serves a volume's bytes from, as its host names it: a reader on the same host (the same
 * {@code host}) may map the file itself and read a needle where it lies, with no get for the agent to answer, once it
 * has checked that the file it opens at {@code path} is this one ({@code device} and {@code inode}).
 *
 * @param host   the agent's host and network namespace (at most 256 bytes), as {@code SameHost} tells it
 * @param path   the file's absolute path on that host (at most 4096 bytes)
 * @param device the file's device number ({@code st_dev})
 * @param inode  the file's inode number ({@code st_ino})
 */
public record ServedFile(String host, String path, long device, long inode) {
    public ServedFile {
        FieldCheck.text("ServedFile.host", host, ProtocolLimits.MAX_HOST_BYTES);
        FieldCheck.text("ServedFile.path", path, ProtocolLimits.MAX_PATH_BYTES);
        if (path.charAt(0) != '/' || path.indexOf('\0') >= 0) {
            throw FieldCheck.bad("ServedFile.path", "must be an absolute path without NUL bytes");
        }
    }
}
