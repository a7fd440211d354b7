package org.seaweedfs.rdma.volume;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/** Exact positional reads from a file channel (the channel's own position is never touched). */
public final class PositionalRead {

    private PositionalRead() {
    }

    /** Fills {@code into} from {@code position}; running out of file is a format error, never a retry loop. */
    public static void fully(FileChannel ch, ByteBuffer into, long position, String source,
            String field) throws IOException {
        int wanted = into.remaining();
        long at = position;
        while (into.hasRemaining()) {
            int n = ch.read(into, at);
            if (n <= 0) {
                throw new VolumeFormatException(source, position, field,
                        "file ends after " + (at - position) + " of " + wanted + " bytes");
            }
            at += n;
        }
    }
}
