package org.seaweedfs.rdma.sidecar.manifest;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import org.seaweedfs.rdma.sidecar.ByteChunks;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleInflater;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPath;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expands a chunk manifest: reads every chunk through the same {@link NeedleSource} as any needle (so over RDMA,
 * each chunk's CRC checked; the fallbacks when RDMA cannot serve it), one after the other, decompresses a
 * gzip-stored chunk, checks that each holds exactly the bytes the manifest says, and copies it to the heap (the
 * pooled read buffers go back at once). The whole file is bounded by {@code maxBytes} ({@code sidecar.maxNeedleBytes}):
 * a larger chunked file fails TOO_LARGE before any chunk is read.
 */
public final class ChunkedFile {

    private static final Logger LOG = LoggerFactory.getLogger(ChunkedFile.class);

    /**
     * The file's plain bytes; {@code source}: rdma only when every chunk came over RDMA, else the other path.
     * {@code manifest} is null when the needle was not a manifest this can read: the bytes are then its own.
     */
    public record Expanded(ChunkManifest manifest, ByteChunks bytes, String source) {

        /** Whether the bytes are the chunks' (not the manifest needle's own). */
        public boolean chunked() {
            return manifest != null;
        }
    }

    private ChunkedFile() {
    }

    /**
     * What a GET of a chunk-manifest needle answers: the file its chunks make, or, when its bytes are not a
     * manifest this can parse, the needle's own plain bytes, as upstream serves them. The content is released.
     * Call on a Vert.x context.
     */
    public static Future<Expanded> serve(Vertx vertx, NeedleSource source, NeedleContent manifestNeedle,
                                         long maxBytes) {
        NeedleStat stat = manifestNeedle.stat();
        return plain(vertx, manifestNeedle, maxBytes).compose(json -> {
            ChunkManifest manifest;
            try {
                manifest = ChunkManifest.parse(json.bytes().getBytes());
            } catch (IllegalArgumentException e) {
                LOG.debug("Chunk manifest {} not expanded: {}", stat.fid(), e.getMessage());
                return Future.succeededFuture(new Expanded(null, ByteChunks.of(json.bytes()), stat.source()));
            }
            return expand(vertx, source, manifest, maxBytes);
        });
    }

    /** Reads the chunks of {@code manifest} from {@code source}; call on a Vert.x context. */
    public static Future<Expanded> expand(Vertx vertx, NeedleSource source, ChunkManifest manifest, long maxBytes) {
        if (manifest.size() > maxBytes) {
            return Future.failedFuture(ReadFailure.tooLarge("chunked file " + manifest.name(), manifest.size(),
                    maxBytes));
        }
        return next(vertx, source, manifest, 0, new ArrayList<>(), ReadPath.RDMA.wire, maxBytes);
    }

    private static Future<Expanded> next(Vertx vertx, NeedleSource source, ChunkManifest manifest, int index,
                                         List<Buffer> bytes, String path, long maxBytes) {
        if (index == manifest.chunks().size()) {
            return Future.succeededFuture(new Expanded(manifest, ByteChunks.of(bytes), path));
        }
        ChunkManifest.Chunk chunk = manifest.chunks().get(index);
        return source.read(chunk.fid()).compose(content -> plain(vertx, content, maxBytes)).compose(read -> {
            if (read.bytes().length() != chunk.size()) {
                return Future.failedFuture(ReadFailure.corrupt("chunk " + chunk.fid() + " holds "
                        + read.bytes().length()
                        + " bytes, the manifest says " + chunk.size()));
            }
            bytes.add(read.bytes());
            String served = ReadPath.RDMA.is(read.source()) ? path : read.source();
            return next(vertx, source, manifest, index + 1, bytes, served, maxBytes);
        }).recover(e -> Future.failedFuture(e instanceof ReadFailure f && f.kind() == ReadFailure.Kind.NOT_FOUND
                ? ReadFailure.corrupt("chunk " + chunk.fid() + " of the manifest is missing: " + f.getMessage()) : e));
    }

    private record Read(Buffer bytes, String source) {
    }

    /** The chunk's plain bytes on the heap; the content is released. */
    private static Future<Read> plain(Vertx vertx, NeedleContent content, long maxBytes) {
        NeedleStat stat = content.stat();
        ByteChunks stored = ByteChunks.of(content.chunks());
        Future<Buffer> bytes = stat.compressed() ? NeedleInflater.inflate(vertx, stored, maxBytes)
                : Future.succeededFuture(copy(stored));
        return bytes.andThen(ar -> content.release()).map(b -> new Read(b, stat.source()));
    }

    private static Buffer copy(ByteChunks chunks) {
        Buffer out = Buffer.buffer((int) chunks.length());
        chunks.chunks().forEach(out::appendBuffer);
        return out;
    }
}
