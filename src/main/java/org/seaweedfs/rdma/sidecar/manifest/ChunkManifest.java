package org.seaweedfs.rdma.sidecar.manifest;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.seaweedfs.rdma.volume.FileId;

/**
 * A SeaweedFS chunk manifest (a needle with the {@code cm} flag; weed/operation/chunked_file.go): JSON
 * {@code {"name","mime","size","chunks":[{"fid","offset","size"}]}}, the chunks sorted by offset as upstream sorts
 * them. Bounded: at most {@link #MAX_CHUNKS} chunks; the chunks must tile the file from 0 without gaps or overlaps
 * (each chunk's bytes are where its offset says), so the file's size is the sum of the chunks' sizes.
 *
 * @param name  file name ("" when none)
 * @param mime  type ("" when none)
 * @param size  the file's size: the end of the last chunk
 */
public record ChunkManifest(String name, String mime, long size, List<Chunk> chunks) {

    /** Chunks one manifest may list (upstream writes one per 8-64 MiB piece: 10 000 chunks are hundreds of GiB). */
    public static final int MAX_CHUNKS = 10_000;

    /** One chunk: a needle holding {@code size} bytes of the file from {@code offset}. */
    public record Chunk(FileId fid, long offset, long size) {
    }

    public ChunkManifest {
        chunks = List.copyOf(chunks);
    }

    /**
     * @param json the manifest needle's plain (decompressed) bytes
     * @throws IllegalArgumentException when it is not a manifest this can expand (the reason says why)
     */
    public static ChunkManifest parse(byte[] json) {
        JsonObject root;
        try {
            root = new JsonObject(new String(json, java.nio.charset.StandardCharsets.UTF_8));
        } catch (DecodeException | ClassCastException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage());
        }
        try {
            JsonArray list = root.getJsonArray("chunks", new JsonArray());
            if (list.size() > MAX_CHUNKS) {
                throw new IllegalArgumentException(list.size() + " chunks, more than " + MAX_CHUNKS);
            }
            List<Chunk> chunks = new ArrayList<>(list.size());
            for (int i = 0; i < list.size(); i++) {
                JsonObject c = list.getJsonObject(i);
                long offset = c.getLong("offset", 0L);
                long size = c.getLong("size", 0L);
                if (offset < 0 || size < 0) {
                    throw new IllegalArgumentException("chunk " + i + ": negative offset or size");
                }
                chunks.add(new Chunk(FileId.parse(c.getString("fid", "")), offset, size));
            }
            chunks.sort(Comparator.comparingLong(Chunk::offset));
            long end = 0;
            for (Chunk c : chunks) {
                if (c.offset() != end) {
                    throw new IllegalArgumentException("chunk " + c.fid() + " starts at " + c.offset() + ", expected "
                            + end
                            + " (chunks must tile the file)");
                }
                end = Math.addExact(end, c.size());
            }
            long declared = root.getLong("size", 0L);
            if (declared != 0 && declared != end) {
                throw new IllegalArgumentException("size " + declared + " but the chunks hold " + end + " bytes");
            }
            return new ChunkManifest(root.getString("name", ""), root.getString("mime", ""), end, chunks);
        } catch (ClassCastException | ArithmeticException e) {
            throw new IllegalArgumentException("malformed: " + e.getMessage());
        }
    }
}
