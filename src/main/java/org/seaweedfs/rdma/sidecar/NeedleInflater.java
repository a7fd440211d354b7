package org.seaweedfs.rdma.sidecar;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.Arrays;
import java.util.Collections;
import java.util.zip.GZIPInputStream;

/** Decompresses gzip-stored needles off the event loop, never beyond a size bound. */
public final class NeedleInflater {

    private NeedleInflater() {
    }

    /**
     * @return the decompressed bytes; fails with {@link ReadFailure} CORRUPT when the data is not gzip,
     *         or when it would exceed {@code maxBytes}
     */
    public static Future<Buffer> inflate(Vertx vertx, ByteChunks stored, long maxBytes) {
        // Copied to heap first: the pooled chunks may be released before the worker runs.
        byte[][] parts = stored.chunks().stream().map(Buffer::getBytes).toArray(byte[][]::new);
        return vertx.executeBlocking(() -> inflate(parts, maxBytes), false);
    }

    static Buffer inflate(byte[][] parts, long maxBytes) {
        InputStream in = new SequenceInputStream(Collections.enumeration(
                Arrays.stream(parts).map(p -> (InputStream) new ByteArrayInputStream(p)).toList()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[64 * 1024];
        try (GZIPInputStream gz = new GZIPInputStream(in, buf.length)) {
            for (int n; (n = gz.read(buf)) > 0; ) {
                if (out.size() + (long) n > maxBytes) {
                    throw new ReadFailure(ReadFailure.Kind.TOO_LARGE,
                            "needle decompresses beyond " + maxBytes + " bytes (sidecar.maxNeedleBytes)");
                }
                out.write(buf, 0, n);
            }
        } catch (IOException e) {
            throw ReadFailure.corrupt("needle is flagged gzip but does not decompress: " + e.getMessage());
        }
        return Buffer.buffer(out.toByteArray());
    }
}
