package org.seaweedfs.rdma.volume;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Everything in a record after the data: the meta, the stored checksum and (version 3) the append time.
 * Parsed on its own so that a large needle's data can be streamed in chunks before its tail arrives.
 */
public record NeedleTail(NeedleMeta meta, int checksum, long appendAtNs) {

    /**
     * Parses {@code metaLength} bytes of meta at {@code pos}, then the checksum and, for version 3, the
     * append timestamp (see {@link NeedleLayout#metaLength} and {@link NeedleLayout#tailLength}).
     */
    public static NeedleTail parse(ByteBuffer buf, int pos, int metaLength, int version, String source,
            long recordOffset) {
        int needed = metaLength + NeedleLayout.tailLength(version);
        if (pos < 0 || metaLength < 0 || buf.limit() - pos < needed) {
            throw new VolumeFormatException(source, recordOffset, "needle tail",
                    "needs " + needed + " bytes, " + Math.max(0, buf.limit() - pos) + " available");
        }
        NeedleMeta meta = NeedleMeta.parse(buf, pos, metaLength, source, recordOffset);
        int checksumAt = pos + metaLength;
        long appendAtNs = version == SuperBlock.VERSION_3 ? buf.getLong(checksumAt + NeedleLayout.CHECKSUM_SIZE) : 0;
        return new NeedleTail(meta, buf.getInt(checksumAt), appendAtNs);
    }

    /**
     * True when the needle has a ttl and a last-modified date and {@code written + ttl <= now} (SeaweedFS then
     * answers "not found"). Written is the append time for version 3; version 1/2 records carry none, so
     * their last-modified second is used.
     */
    public boolean expiredAt(int version, long nowMillis) {
        if (!meta.hasLastModified()) {
            return false;
        }
        long writtenNs = version == SuperBlock.VERSION_3 ? appendAtNs : TimeUnit.SECONDS.toNanos(meta.lastModified());
        return meta.ttl().expiredAt(writtenNs, nowMillis);
    }

    /** {@link #expiredAt(int, long)}, reading the clock only for a needle with a ttl (most have none). */
    public boolean expiredAt(int version, LongSupplier clockMillis) {
        return meta.ttl().expires() && expiredAt(version, clockMillis.getAsLong());
    }
}
