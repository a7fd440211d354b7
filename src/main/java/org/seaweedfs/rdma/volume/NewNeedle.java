package org.seaweedfs.rdma.volume;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A needle to be written. Flags follow from the fields as in SeaweedFS (a name sets 0x02, a mime 0x04, a
 * non-zero last-modified 0x08, a ttl 0x10, pairs 0x20) plus the explicit compressed and chunk-manifest bits.
 * Empty data makes a Size-0 record, which carries no meta. {@code legacyChecksum} stores the pre-3.09
 * transformed checksum (to produce volumes like old SeaweedFS did).
 */
public record NewNeedle(long key, int cookie, byte[] data, String name, String mime, long lastModified, Ttl ttl,
                        String pairs, boolean compressed, boolean chunkManifest, long appendAtNs,
                        boolean legacyChecksum) {

    public NewNeedle {
        Objects.requireNonNull(data, "data");
        name = name == null ? "" : name;
        mime = mime == null ? "" : mime;
        ttl = ttl == null ? Ttl.NONE : ttl;
        pairs = pairs == null ? "" : pairs;
        checkLength("name", name, 255);
        checkLength("mime", mime, 255);
        checkLength("pairs", pairs, 0xFFFF);
        if (lastModified < 0 || lastModified >= 1L << 40) {
            throw new IllegalArgumentException("last modified " + lastModified
                    + " does not fit in 5 bytes of unix seconds");
        }
    }

    private static void checkLength(String field, String value, int max) {
        int length = value.getBytes(StandardCharsets.UTF_8).length;
        if (length > max) {
            throw new IllegalArgumentException(field + " is " + length + " bytes in UTF-8, at most " + max
                    + " can be stored");
        }
    }

    public int flags() {
        int flags = 0;
        flags |= compressed ? NeedleFlags.COMPRESSED : 0;
        flags |= name.isEmpty() ? 0 : NeedleFlags.NAME;
        flags |= mime.isEmpty() ? 0 : NeedleFlags.MIME;
        flags |= lastModified == 0 ? 0 : NeedleFlags.LAST_MODIFIED;
        flags |= ttl.equals(Ttl.NONE) ? 0 : NeedleFlags.TTL;
        flags |= pairs.isEmpty() ? 0 : NeedleFlags.PAIRS;
        flags |= chunkManifest ? NeedleFlags.CHUNK_MANIFEST : 0;
        return flags;
    }

    public static Builder builder(long key, int cookie, byte[] data) {
        return new Builder(key, cookie, data);
    }

    /** Optional fields default to unset. */
    public static final class Builder {
        private final long key;
        private final int cookie;
        private final byte[] data;
        private String name;
        private String mime;
        private long lastModified;
        private Ttl ttl;
        private String pairs;
        private boolean compressed;
        private boolean chunkManifest;
        private long appendAtNs;
        private boolean legacyChecksum;

        private Builder(long key, int cookie, byte[] data) {
            this.key = key;
            this.cookie = cookie;
            this.data = data;
        }

        public Builder name(String v) { name = v; return this; }
        public Builder mime(String v) { mime = v; return this; }
        public Builder lastModified(long unixSeconds) { lastModified = unixSeconds; return this; }
        public Builder ttl(Ttl v) { ttl = v; return this; }
        public Builder pairs(String json) { pairs = json; return this; }
        public Builder compressed(boolean v) { compressed = v; return this; }
        public Builder chunkManifest(boolean v) { chunkManifest = v; return this; }
        public Builder appendAtNs(long v) { appendAtNs = v; return this; }
        public Builder legacyChecksum(boolean v) { legacyChecksum = v; return this; }

        public NewNeedle build() {
            return new NewNeedle(key, cookie, data, name, mime, lastModified, ttl, pairs, compressed, chunkManifest,
                    appendAtNs, legacyChecksum);
        }
    }
}
