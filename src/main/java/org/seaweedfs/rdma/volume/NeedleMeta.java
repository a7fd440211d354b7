package org.seaweedfs.rdma.volume;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The part of a version 2/3 body after the data: the flags byte and the fields it announces.
 * {@code lastModified} is unix seconds (0 when unset); {@code pairs} is the stored JSON of extra headers
 * ("" when unset).
 */
public record NeedleMeta(int flags, String name, String mime, long lastModified, Ttl ttl, String pairs) {

    /** Version 1 records and empty v2/v3 bodies have no meta. */
    public static final NeedleMeta NONE = new NeedleMeta(0, "", "", 0, Ttl.NONE, "");

    public NeedleMeta {
        name = name == null ? "" : name;
        mime = mime == null ? "" : mime;
        ttl = ttl == null ? Ttl.NONE : ttl;
        pairs = pairs == null ? "" : pairs;
    }

    public boolean isCompressed() {
        return NeedleFlags.has(flags, NeedleFlags.COMPRESSED);
    }

    public boolean isChunkManifest() {
        return NeedleFlags.has(flags, NeedleFlags.CHUNK_MANIFEST);
    }

    public boolean hasLastModified() {
        return NeedleFlags.has(flags, NeedleFlags.LAST_MODIFIED);
    }

    /**
     * Parses {@code length} bytes of meta at {@code pos} (absolute reads). Like SeaweedFS, a flagged field
     * is absent when the meta has ended before it; one that starts but does not fit is corruption.
     */
    public static NeedleMeta parse(ByteBuffer buf, int pos, int length, String source, long recordOffset) {
        if (length == 0) {
            return NONE;
        }
        Cursor c = new Cursor(buf, pos, pos + length, source, recordOffset);
        int flags = c.u8("flags");
        String name = c.has(flags, NeedleFlags.NAME) ? c.text(c.u8("name length"), "name") : "";
        String mime = c.has(flags, NeedleFlags.MIME) ? c.text(c.u8("mime length"), "mime") : "";
        long lastModified = c.has(flags, NeedleFlags.LAST_MODIFIED) ? c.u40("last modified") : 0;
        Ttl ttl = c.has(flags, NeedleFlags.TTL) ? c.ttl() : Ttl.NONE;
        String pairs = c.has(flags, NeedleFlags.PAIRS) ? c.text(c.u16("pairs length"), "pairs") : "";
        return new NeedleMeta(flags, name, mime, lastModified, ttl, pairs);
    }

    /** Bounds-checked reader over one meta region. */
    private static final class Cursor {
        private final ByteBuffer buf;
        private final int end;
        private final String source;
        private final long recordOffset;
        private int at;

        Cursor(ByteBuffer buf, int start, int end, String source, long recordOffset) {
            if (start < 0 || end > buf.limit()) {
                throw new VolumeFormatException(source, recordOffset, "meta",
                        "needs " + (end - start) + " bytes at buffer position " + start + ", buffer limit is "
                                + buf.limit());
            }
            this.buf = buf;
            this.at = start;
            this.end = end;
            this.source = source;
            this.recordOffset = recordOffset;
        }

        boolean has(int flags, int bit) {
            return NeedleFlags.has(flags, bit) && at < end;
        }

        private int need(int n, String field) {
            if (end - at < n) {
                throw new VolumeFormatException(source, recordOffset, field,
                        "needs " + n + " bytes but the needle body has " + (end - at) + " left");
            }
            int p = at;
            at += n;
            return p;
        }

        int u8(String field) {
            return buf.get(need(1, field)) & 0xFF;
        }

        int u16(String field) {
            return buf.getShort(need(2, field)) & 0xFFFF;
        }

        long u40(String field) {
            int p = need(NeedleLayout.LAST_MODIFIED_SIZE, field);
            return ((buf.get(p) & 0xFFL) << 32) | (buf.getInt(p + 1) & 0xFFFF_FFFFL);
        }

        Ttl ttl() {
            int p = need(2, "ttl");
            return Ttl.decode(buf.get(p), buf.get(p + 1));
        }

        String text(int length, String field) {
            int p = need(length, field);
            byte[] bytes = new byte[length];
            buf.get(p, bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }
}
